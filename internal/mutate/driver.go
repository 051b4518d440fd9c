package mutate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/build"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Areas maps each package of ref/ to the scenarios that certify it: the
// --run regexp of its area. A mutant is run against its package's area
// only, since a third party is certified by scenarios alone.
var Areas = map[string]string{
	"ref/call":       "^call_",
	"ref/shellexec":  "^exec_",
	"ref/output":     "^output_",
	"ref/loginpath":  "^path_",
	"ref/permission": "^perm_",
	"ref/background": "^bg_",
	// ref/tool composes every concern, so the whole suite certifies it.
	"ref/tool":   ".",
	"ref/server": "^proto_",
	// procwait waits for the shell of a command and of the login probe.
	"ref/internal/procwait": "^(exec|path)_",
}

// Status is what became of a mutant.
type Status string

// The statuses of a mutant.
const (
	Killed       Status = "killed"       // a scenario of its area failed or errored
	TimedOut     Status = "timeout"      // the run outlived its bound and was killed: counted as killed
	OverMemory   Status = "memory"       // the run's processes held more than Config.MemoryBound and were killed: counted as killed, with the timeouts
	Survived     Status = "survived"     // every scenario of its area passed
	Uncompilable Status = "uncompilable" // the mutant did not build: skipped, counted apart
	Inconclusive Status = "inconclusive" // nothing failed, but the machine missed a time bound in every attempt: neither killed nor survived, rerun it
)

// memoryPoll is how often a scenario run's resident memory is read
// against Config.MemoryBound: a mutant that loops allocating grows by a
// few hundred megabytes in it.
const memoryPoll = time.Second

// exitInconclusive is apexcheck's exit status for a run that decides
// neither way (internal/cli.ExitInconclusive).
const exitInconclusive = 3

// Result is the outcome of one mutant.
type Result struct {
	Mutant Mutant
	Status Status
	// Killer is the first failed or errored scenario, when one was named.
	Killer string
	// Build and Run are the times the build and the scenario run took.
	Build, Run time.Duration
	// Detail is the compiler's first error for an uncompilable mutant.
	Detail string
}

// Config configures a mutation run.
type Config struct {
	// Root is the module root; Packages the package directories to mutate,
	// relative to it (keys of Areas).
	Root     string
	Packages []string
	// Max, when positive, samples at most Max mutants per package, chosen
	// with Seed.
	Max  int
	Seed int64
	// Jobs is the number of mutants built and run at once.
	Jobs int
	// Timeout bounds one mutant's scenario run; 0 derives it from the
	// unmutated run of its area (see Run).
	Timeout time.Duration
	// MemoryBound bounds the resident memory of one mutant's scenario run
	// (its runner and everything it starts), in bytes; 0 sets none. A
	// mutant that loops allocating reaches gigabytes within the time
	// bound, several servers at once, and with two jobs could take a
	// machine's memory; the run is killed at the bound instead.
	MemoryBound int64
	// Sandbox is the command prefix each scenario run is started under,
	// from FindSandbox; nil runs them on the host (see sandbox.go for why
	// that is unsafe).
	Sandbox []string
	// Main is the package built into the binary under test.
	Main string
	// Triage is the triage list. A survivor it says a scenario kills is
	// run against that scenario as well as its area, so the claim is
	// checked even when the scenario belongs to another area.
	Triage Triage
}

// Collect returns the mutants of the configured packages: every non-test
// Go file that builds on this platform, sampled per package by Max and
// Seed, in ID order within each package.
func Collect(cfg Config) (map[string][]Mutant, error) {
	out := map[string][]Mutant{}
	for _, pkg := range cfg.Packages {
		dir := filepath.Join(cfg.Root, filepath.FromSlash(pkg))
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", pkg, err)
		}
		var all []Mutant
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", name, err)
			}
			ms, err := Generate(pkg+"/"+name, src)
			if err != nil {
				return nil, err
			}
			all = append(all, ms...)
		}
		if cfg.Max > 0 && len(all) > cfg.Max {
			r := rand.New(rand.NewSource(cfg.Seed))
			r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			all = all[:cfg.Max]
			sort.SliceStable(all, func(i, j int) bool { return lessID(all[i], all[j]) })
		}
		out[pkg] = all
	}
	return out, nil
}

func lessID(a, b Mutant) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Start < b.Start || a.Start == b.Start && a.ID < b.ID
}

// Runner builds and runs mutants.
type Runner struct {
	cfg  Config
	tmp  string
	base map[string]time.Duration // area regexp → unmutated run time
	stop <-chan struct{}          // closed when RunAll's context is done
}

// NewRunner makes a Runner with a private temporary directory; Close
// removes it.
func NewRunner(cfg Config) (*Runner, error) {
	if cfg.Main == "" {
		cfg.Main = "./cmd/apexcheck"
	}
	if cfg.Jobs < 1 {
		cfg.Jobs = 1
	}
	tmp, err := os.MkdirTemp("", "apexcheck-mutants-")
	if err != nil {
		return nil, fmt.Errorf("make temp dir: %w", err)
	}
	return &Runner{cfg: cfg, tmp: tmp, base: map[string]time.Duration{}}, nil
}

// Close removes the runner's temporary files.
func (r *Runner) Close() error { return os.RemoveAll(r.tmp) }

// Scenarios is the --run regexp of the scenarios run against m: its
// package's area, and the scenario its triage names, if any.
func (r *Runner) Scenarios(m Mutant) string {
	area := Areas[pkgOf(m.File)]
	if v, ok := r.cfg.Triage[m.ID]; ok && v.Scenario != "" {
		area = "(" + area + ")|^" + regexp.QuoteMeta(v.Scenario) + "$"
	}
	return area
}

// Baseline builds the unmutated binary and runs each area once: a mutant
// proves nothing against an area that fails without it. It records each
// area's time, from which the default per-mutant bound is derived.
func (r *Runner) Baseline(areas []string) error {
	dir := filepath.Join(r.tmp, "base")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	bin := filepath.Join(dir, "apexcheck")
	if out, err := r.build("", bin); err != nil {
		return fmt.Errorf("baseline build: %w\n%s", err, out)
	}
	for _, area := range areas {
		start := time.Now()
		status, killer, out := r.scenarios(bin, area, dir, 10*time.Minute)
		if status != Survived {
			return fmt.Errorf("baseline: area %q does not pass unmutated (%s %s):\n%s", area, status, killer, tail(out, 20))
		}
		r.base[area] = time.Since(start)
	}
	return nil
}

// bound is the time one mutant's run of area may take: five times the
// unmutated run plus a minute, since the machine is shared and loaded.
func (r *Runner) bound(area string) time.Duration {
	if r.cfg.Timeout > 0 {
		return r.cfg.Timeout
	}
	return 5*r.base[area] + time.Minute
}

// RunAll runs every mutant, cfg.Jobs at a time, calling done as each ends.
// When ctx is done, no mutant starts and the scenario runs in flight are
// killed; their results are not reported.
func (r *Runner) RunAll(ctx context.Context, ms []Mutant, done func(Result)) {
	r.stop = ctx.Done()
	work := make(chan int)
	var wg sync.WaitGroup
	for j := 0; j < r.cfg.Jobs; j++ {
		wg.Add(1)
		go func(j int) {
			defer wg.Done()
			for i := range work {
				res := r.Run(ms[i], fmt.Sprintf("m%d", i))
				if ctx.Err() == nil {
					done(res)
				}
			}
		}(j)
	}
	for i := range ms {
		select {
		case work <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(work)
	wg.Wait()
}

// Run builds one mutant with a build overlay (the module is never
// copied) and runs its area's scenarios against it.
func (r *Runner) Run(m Mutant, slot string) Result {
	res := Result{Mutant: m}
	dir := filepath.Join(r.tmp, slot)
	defer os.RemoveAll(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		res.Status, res.Detail = Uncompilable, err.Error()
		return res
	}
	file := filepath.Join(r.cfg.Root, filepath.FromSlash(m.File))
	src, err := os.ReadFile(file)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, filepath.Base(file)), m.Apply(src), 0o644)
	}
	var overlay []byte
	if err == nil {
		overlay, err = json.Marshal(map[string]map[string]string{"Replace": {file: filepath.Join(dir, filepath.Base(file))}})
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "overlay.json"), overlay, 0o644)
	}
	if err != nil {
		res.Status, res.Detail = Uncompilable, err.Error()
		return res
	}
	bin := filepath.Join(dir, "apexcheck")
	start := time.Now()
	out, err := r.build(filepath.Join(dir, "overlay.json"), bin)
	res.Build = time.Since(start)
	if err != nil {
		res.Status, res.Detail = Uncompilable, firstLine(out)
		return res
	}
	area := r.Scenarios(m)
	start = time.Now()
	res.Status, res.Killer, _ = r.scenarios(bin, area, dir, r.bound(area))
	res.Run = time.Since(start)
	return res
}

func (r *Runner) build(overlay, bin string) (string, error) {
	args := []string{"build", "-o", bin, "-ldflags=-s -w"}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	cmd := exec.Command("go", append(args, r.cfg.Main)...)
	cmd.Dir = r.cfg.Root
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// failLine is the CLI's line for a failed or errored scenario.
var failLine = regexp.MustCompile(`(?m)^(?:FAILED|ERRORED)\s+(\S+)`)

// scenarios runs bin's scenarios matching area against its own embedded
// reference, which is the mutant, in its own process group and temporary
// directory, both removed after.
func (r *Runner) scenarios(bin, area, dir string, bound time.Duration) (Status, string, string) {
	tmp := filepath.Join(dir, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return Killed, "", err.Error()
	}
	defer os.RemoveAll(tmp)
	args := append(append([]string{}, r.cfg.Sandbox...), bin, "--run", area, "--fail-fast", "--progress", "off")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return Killed, "", err.Error()
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	timedOut := false
	var held int64 // resident bytes at the memory bound, when it was passed
	timer := time.NewTimer(bound)
	defer timer.Stop()
	var tick <-chan time.Time
	if r.cfg.MemoryBound > 0 {
		t := time.NewTicker(memoryPoll)
		defer t.Stop()
		tick = t.C
	}
wait:
	for {
		select {
		case err = <-exited:
			break wait
		case <-timer.C:
			timedOut = true
		case <-tick:
			if held = residentUnder(tmp); held <= r.cfg.MemoryBound {
				continue
			}
		case <-r.stop:
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-exited
		break
	}
	// Whatever the run left in its group goes too, and after a kill
	// whatever it started elsewhere.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if timedOut || err != nil {
		killLeftovers(tmp)
	}
	killer := ""
	if m := failLine.FindStringSubmatch(out.String()); m != nil {
		killer = m[1]
	}
	switch {
	case timedOut:
		return TimedOut, killer, out.String()
	case held > r.cfg.MemoryBound:
		return OverMemory, killer, fmt.Sprintf("%s\nmutants: killed holding %d MiB, over the memory bound of %d MiB\n",
			out.String(), held>>20, r.cfg.MemoryBound>>20)
	case err != nil:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return Killed, killer, out.String() + err.Error()
		}
		if ee.ExitCode() == exitInconclusive {
			// A scenario that a loaded machine left undecided kills
			// nothing: counting it would credit the machine.
			return Inconclusive, "", out.String()
		}
		return Killed, killer, out.String()
	}
	return Survived, "", out.String()
}

// pkgOf is the package directory of a file path.
func pkgOf(file string) string {
	if i := strings.LastIndex(file, "/"); i >= 0 {
		return file[:i]
	}
	return "."
}

func firstLine(s string) string {
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return ""
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
