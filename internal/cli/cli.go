// Package cli is the apexcheck command line. cmd/apexcheck only dispatches
// roles and calls Main.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/internal/version"
	"mvdan.cc/sh/v3/shell"
)

// Exit codes: conformance and kit errors are kept apart, so CI can tell a
// non-conformant implementation from a broken setup.
const (
	ExitConformant    = 0
	ExitNotConformant = 1 // a scenario failed or errored
	ExitUsage         = 2 // bad flags or arguments, or the implementation could not be started
)

const usage = `usage: apexcheck [flags]            certify an implementation (default: the embedded reference)
       apexcheck list [flags]       list the scenarios with their clauses and required capabilities
       apexcheck explain CLAUSE     print a clause and the scenarios that prove it
       apexcheck serve              serve the reference implementation on stdin/stdout
       apexcheck version            print the kit version

flags:
`

// Main runs the command line and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "list":
			return cmdList(args[1:], stdout, stderr)
		case "explain":
			return cmdExplain(args[1:], stdout, stderr)
		case "version":
			fmt.Fprintln(stdout, "apexcheck", version.Kit)
			return ExitConformant
		}
	}
	return cmdCertify(args, stdout, stderr)
}

type runFlags struct {
	impl     string
	run      string
	parallel int
	bound    time.Duration
	keepWork bool
	verbose  bool
}

func (f *runFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.impl, "impl", "", "implementation command line `CMD ARGS` (default: this binary's reference, `apexcheck serve`)")
	fs.StringVar(&f.run, "run", "", "run only scenarios whose name matches `REGEXP`")
	fs.IntVar(&f.parallel, "parallel", 0, "scenarios run at once (default 2×cores)")
	fs.DurationVar(&f.bound, "bound", conformance.DefaultBound, "bound on every wait for the implementation")
	fs.BoolVar(&f.keepWork, "keep-work", false, "keep the work directory of scenarios that did not pass")
	fs.BoolVar(&f.verbose, "v", false, "print every scenario's outcome")
}

func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}

// config turns flags into a runner configuration.
func (f *runFlags) config() (conformance.Config, error) {
	cfg := conformance.Config{Scripts: apexcheck.Scripts, Dir: ".", Parallel: f.parallel, Bound: f.bound, KeepWork: f.keepWork}
	self, err := os.Executable()
	if err != nil {
		return cfg, fmt.Errorf("locate own executable: %w", err)
	}
	cfg.SelfExe = self
	if f.impl == "" {
		cfg.Impl = []string{self, "serve"}
	} else {
		words, err := shell.Fields(f.impl, nil)
		if err != nil {
			return cfg, fmt.Errorf("--impl %q: %w", f.impl, err)
		}
		if len(words) == 0 {
			return cfg, errors.New("--impl is empty")
		}
		cfg.Impl = words
	}
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			return cfg, fmt.Errorf("--run: %w", err)
		}
		cfg.Run = re
	}
	if f.parallel < 0 {
		return cfg, errors.New("--parallel must not be negative")
	}
	if f.bound <= 0 {
		return cfg, errors.New("--bound must be positive")
	}
	return cfg, nil
}

func cmdCertify(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("apexcheck", stderr)
	var f runFlags
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitConformant
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "apexcheck: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return ExitUsage
	}
	cfg, err := f.config()
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	hello, err := conformance.Handshake(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "apexcheck: implementation %q: %v\n", strings.Join(cfg.Impl, " "), err)
		if hello != nil {
			if tail := strings.TrimSpace(hello.StderrTail()); tail != "" {
				fmt.Fprintf(stderr, "implementation stderr (tail):\n%s\n", tail)
			}
		}
		return ExitUsage
	}
	impl := hello.Hello.Implementation
	cfg.Capabilities = hello.Capabilities()
	fmt.Fprintf(stdout, "apexcheck %s certifying %s %s (%s)\n", version.Kit, impl.Name, impl.Version, impl.Language)
	fmt.Fprintf(stdout, "capabilities: %s\n", strings.Join(sortedKeys(cfg.Capabilities), " "))
	cfg.OnResult = func(r conformance.Result) {
		if f.verbose || (r.Outcome != conformance.Passed && r.Outcome != conformance.Skipped) {
			fmt.Fprintf(stdout, "%-8s %s (%.1fs)\n", strings.ToUpper(string(r.Outcome)), r.Scenario.Name, r.Duration.Seconds())
			if r.Outcome != conformance.Passed && r.Message != "" {
				fmt.Fprintln(stdout, indent(r.Message))
			}
			if r.WorkDir != "" {
				fmt.Fprintf(stdout, "    work directory kept: %s\n", r.WorkDir)
			}
		}
	}
	results, err := conformance.Run(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck:", err)
		return ExitUsage
	}
	writeSummary(stdout, results)
	for _, r := range results {
		if r.Outcome == conformance.Failed || r.Outcome == conformance.Errored {
			return ExitNotConformant
		}
	}
	return ExitConformant
}

// writeSummary prints passed / failed / errored / skipped per area and in
// total. Skips are never counted as passes.
func writeSummary(w io.Writer, results []conformance.Result) {
	type counts map[conformance.Outcome]int
	byArea := map[string]counts{}
	total := counts{}
	for _, r := range results {
		if byArea[r.Scenario.Area] == nil {
			byArea[r.Scenario.Area] = counts{}
		}
		byArea[r.Scenario.Area][r.Outcome]++
		total[r.Outcome]++
	}
	fmt.Fprintf(w, "\n%-12s %7s %7s %7s %7s\n", "area", "passed", "failed", "errored", "skipped")
	areas := make([]string, 0, len(byArea))
	for a := range byArea {
		areas = append(areas, a)
	}
	sort.Strings(areas)
	line := func(name string, c counts) {
		fmt.Fprintf(w, "%-12s %7d %7d %7d %7d\n", name, c[conformance.Passed], c[conformance.Failed], c[conformance.Errored], c[conformance.Skipped])
	}
	for _, a := range areas {
		line(a, byArea[a])
	}
	line("total", total)
	fmt.Fprintf(w, "%d passed, %d failed, %d errored, %d skipped\n",
		total[conformance.Passed], total[conformance.Failed], total[conformance.Errored], total[conformance.Skipped])
}

func cmdList(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("apexcheck list", stderr)
	run := fs.String("run", "", "list only scenarios whose name matches `REGEXP`")
	if err := fs.Parse(args); err != nil {
		return ExitUsage
	}
	var re *regexp.Regexp
	if *run != "" {
		var err error
		if re, err = regexp.Compile(*run); err != nil {
			fmt.Fprintln(stderr, "apexcheck list: --run:", err)
			return ExitUsage
		}
	}
	scenarios, err := conformance.LoadScenarios(apexcheck.Scripts, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck list:", err)
		return ExitUsage
	}
	for _, s := range scenarios {
		if re != nil && !re.MatchString(s.Name) {
			continue
		}
		req := "-"
		if len(s.Requires) > 0 {
			req = strings.Join(s.Requires, ",")
		}
		fmt.Fprintf(stdout, "%-44s %-28s %s\n", s.Name, strings.Join(s.Clauses, ","), req)
	}
	return ExitConformant
}

func cmdExplain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: apexcheck explain CLAUSE")
		return ExitUsage
	}
	id := strings.ToUpper(args[0])
	clauses, err := conformance.LoadClauses(apexcheck.Spec)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck explain:", err)
		return ExitUsage
	}
	for _, c := range clauses {
		if c.ID != id {
			continue
		}
		fmt.Fprintf(stdout, "%s (%s; %s) spec/%s\n%s\n\nscenarios:\n", c.ID, c.Level, c.Provenance, c.File, c.Text)
		scenarios, _ := conformance.LoadScenarios(apexcheck.Scripts, ".")
		n := 0
		for _, s := range scenarios {
			for _, sc := range s.Clauses {
				if sc == id {
					fmt.Fprintf(stdout, "  testdata/scripts/%s.txtar  %s\n", s.Name, s.Summary)
					n++
				}
			}
		}
		if n == 0 {
			fmt.Fprintln(stdout, "  (none)")
		}
		return ExitConformant
	}
	fmt.Fprintf(stderr, "apexcheck explain: no clause %s\n", id)
	return ExitUsage
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k, v := range m {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n    ")
}
