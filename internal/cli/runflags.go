package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"mvdan.cc/sh/v3/shell"
)

// implFlags are the flags that start an implementation.
type implFlags struct {
	impl  string
	bound time.Duration
	mcp   mcpFlags
}

func (f *implFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.impl, "impl", "", "implementation command line `CMD ARGS` (default: this binary's reference, `apexcheck serve`); relative paths in it are made absolute")
	fs.DurationVar(&f.bound, "bound", client.DefaultBound, "bound on every wait for the implementation, not counting time the machine held it back (then at most twice this)")
	f.mcp.register(fs)
}

// command resolves --impl into an argument vector. The implementation
// starts in each scenario's work directory, so an argument naming an
// existing path relative to the current directory is made absolute.
func (f *implFlags) command() ([]string, string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, "", fmt.Errorf("locate own executable: %w", err)
	}
	if f.bound <= 0 {
		return nil, "", errors.New("--bound must be positive")
	}
	if f.mcp.server != "" {
		argv, err := f.mcp.command(self, f.impl)
		return argv, self, err
	}
	if f.impl == "" {
		return []string{self, "serve"}, self, nil
	}
	words, err := shell.Fields(f.impl, nil)
	if err != nil {
		return nil, "", fmt.Errorf("--impl %q: %w", f.impl, err)
	}
	if len(words) == 0 {
		return nil, "", errors.New("--impl is empty")
	}
	absPaths(words)
	return words, self, nil
}

// absPaths makes absolute each word naming an existing relative path, and
// each word that is plainly a path (./x, ../x) whether or not it exists:
// a missing one is then reported where the caller looked for it, not
// inside the scenario's work directory.
func absPaths(words []string) {
	for i, w := range words {
		if strings.Contains(w, "/") && !filepath.IsAbs(w) {
			_, err := os.Stat(w)
			if err == nil || strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") {
				if abs, err := filepath.Abs(w); err == nil {
					words[i] = abs
				}
			}
		}
	}
}

// rerunFlags are the flags a rerun of one scenario must repeat to behave
// as this run did.
func (f *runFlags) rerunFlags() []string {
	var out []string
	if f.bound != client.DefaultBound {
		out = append(out, "--bound", f.bound.String())
	}
	return out
}

// runFlags are the flags of a run.
type runFlags struct {
	implFlags
	selectFlags
	reportFlags
	parallel    int
	keepWork    bool
	writeExpect string
	failFast    bool
	maxFail     int
	progress    string
}

func (f *runFlags) register(fs *flag.FlagSet) {
	f.implFlags.register(fs)
	f.selectFlags.register(fs, "run")
	fs.IntVar(&f.parallel, "parallel", 0, "scenarios run at once (default 2×cores)")
	fs.BoolVar(&f.failFast, "fail-fast", false, "stop starting scenarios after the first failure (same as --max-fail 1)")
	fs.IntVar(&f.maxFail, "max-fail", 0, "stop starting scenarios after `N` failures; the rest are reported skipped")
	fs.BoolVar(&f.keepWork, "keep-work", false, "keep the work directory of scenarios that failed or errored, and print it")
	fs.StringVar(&f.progress, "progress", "auto", "progress on stderr: `MODE` tty (a live line), plain (a line per scenario), off, or auto (tty on a terminal, else plain)")
	f.reportFlags.register(fs, reportUsage{
		json:    "write a JSON Lines report to `FILE`",
		expect:  "check the run against the expectation ledger `FILE`: known failures pass, any difference fails",
		certify: "certify: every MUST scenario must run and pass (no skips); prints a certificate (with --shard and --json: judges the shard, and apexcheck merge certifies)",
	})
	fs.StringVar(&f.writeExpect, "write-expect", "", "write a draft ledger of this run's failures to `FILE`, for review (a run of part of the suite keeps the other scenarios' entries)")
}

// check rejects flag combinations that make no sense.
func (f *runFlags) check() error {
	switch {
	case f.parallel < 0:
		return errors.New("--parallel must not be negative")
	case f.maxFail < 0:
		return errors.New("--max-fail must not be negative")
	case f.failFast && f.maxFail > 1:
		return errors.New("--fail-fast and --max-fail disagree; give one")
	case f.certify && (f.run != "" || len(f.areas) > 0):
		return errors.New("--certify needs the whole suite: drop --run and --area")
	case f.certify && f.shard != "" && (f.jsonFile == "" || f.certFile != ""):
		return errors.New("--certify --shard runs one shard for apexcheck merge, which certifies: give --json FILE, and --certificate to merge")
	case f.certFile != "" && !f.certify:
		return errors.New("--certificate needs --certify")
	}
	switch f.progress {
	case "auto", "tty", "plain", "off":
	default:
		return fmt.Errorf("--progress %q: want auto, tty, plain or off", f.progress)
	}
	return nil
}
