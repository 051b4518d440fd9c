// Package conformance runs apexcheck's scenarios against an implementation
// of the bash tool over the wire protocol, and collects their outcomes.
//
// It is used by `go test` (Test) and by the apexcheck command (Run) alike.
// Data flows one way: scenarios drive a protocol client, the client drives
// the implementation, outcomes become Results.
package conformance

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// DefaultBound is the default bound on every wait for the implementation.
// It is generous because a loaded 2-core CI machine can stall a process for
// seconds; a conforming call in the suite answers in well under a second
// unless its scenario says otherwise.
const DefaultBound = 30 * time.Second

// Config configures a run.
type Config struct {
	// Impl is the implementation's command line.
	Impl []string
	// Scripts holds the scenarios; Dir is their directory within it.
	Scripts fs.FS
	Dir     string
	// Run selects scenarios by name; nil runs all.
	Run *regexp.Regexp
	// Profile selects the scenarios of one profile; empty is Apex, every
	// scenario.
	Profile Profile
	// Select, when set, further selects scenarios (for example a shard of
	// the suite, see Shard); nil selects all that Run selects.
	Select func(Scenario) bool
	// Parallel is the number of scenarios run at once; 0 means GOMAXPROCS×2.
	Parallel int
	// Bound overrides DefaultBound.
	Bound time.Duration
	// KeepWork keeps the work directory of failed and errored scenarios.
	KeepWork bool
	// SelfExe is an executable that plays the kit's helpers by the value of
	// APEXCHECK_ROLE (internal/roles): fake login shells (fakeshell), a
	// program run with /bin or TMPDIR changed (binoverlay) and the session
	// leader of a terminal scenario (ptyjob). Empty disables the fakeshell
	// command, impl start -pty, -bin and -tmpfs, and makes [userns] false.
	SelfExe string
	// Capabilities overrides the handshake's capabilities when set (tests).
	Capabilities map[string]bool
	// OnStart, when set, is called as each scenario starts to run (not for
	// one skipped before it starts); OnResult as each finishes.
	OnStart  func(Scenario)
	OnResult func(Result)
	// MaxFail, when positive, stops the run after that many failures: no
	// scenario starts once they are reached, and every scenario not started
	// is reported skipped ("not run: stopped after N failures"). Scenarios
	// already running finish and are reported as they end.
	MaxFail int
	// CountsAsFailure decides which results count toward MaxFail; nil
	// counts every failed or errored result. A caller with an expectation
	// ledger counts only the unexpected ones.
	CountsAsFailure func(Result) bool

	envNames []string
}

func (c *Config) bound() time.Duration {
	if c.Bound > 0 {
		return c.Bound
	}
	return DefaultBound
}

// Outcome is a scenario's outcome. Skips are never passes.
type Outcome string

// The four outcomes (FACTS §8).
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Errored Outcome = "errored"
	Skipped Outcome = "skipped"
)

// Result is one scenario's outcome.
type Result struct {
	Scenario Scenario
	Outcome  Outcome
	// Message is the failure or skip reason; Log is the full script log.
	Message  string
	Log      string
	Duration time.Duration
	// WorkDir is kept when Config.KeepWork is set and the scenario did not
	// pass.
	WorkDir string
}

// Handshake starts the implementation once, outside any scenario, to learn
// its identity and capabilities.
func Handshake(cfg Config) (*Client, error) {
	dir, err := os.MkdirTemp("", "apexcheck-handshake-")
	if err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	trackDir(dir, true)
	defer func() { os.RemoveAll(dir); trackDir(dir, false) }()
	c, err := StartClient(cfg.Impl, append(os.Environ(), "HOME="+dir, "TMPDIR="+dir), dir, cfg.bound())
	if err != nil {
		return nil, err
	}
	if err := c.Shutdown(cfg.bound()); err != nil {
		c.Kill()
		return nil, c.startError(fmt.Errorf("handshake: shutdown: %w", err))
	}
	return c, nil
}

// prepare extracts the scenarios to disk (testscript reads files) and
// selects those to run.
func (cfg *Config) prepare() (dir string, selected []Scenario, err error) {
	all, err := LoadScenarios(cfg.Scripts, cfg.Dir)
	if err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp("", "apexcheck-scenarios-")
	if err != nil {
		return "", nil, fmt.Errorf("extract scenarios: %w", err)
	}
	for _, s := range all {
		if !cfg.selects(s) {
			continue
		}
		data, err := fs.ReadFile(cfg.Scripts, s.Path)
		if err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("extract scenarios: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, s.Name+".txtar"), data, 0o644); err != nil {
			os.RemoveAll(dir)
			return "", nil, fmt.Errorf("extract scenarios: %w", err)
		}
		selected = append(selected, s)
	}
	return dir, selected, nil
}

func (cfg *Config) params(files []string, workRoot string) testscript.Params {
	return testscript.Params{
		Files:       files,
		WorkdirRoot: workRoot,
		Cmds:        mergeCmds(Commands(), cfg.extraCommands()),
		Condition:   cfg.condition,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			st := newState(cfg)
			env.Values[stateKey{}] = st
			env.Defer(st.stop)
			return nil
		},
	}
}

func mergeCmds(maps ...map[string]func(*testscript.TestScript, bool, []string)) map[string]func(*testscript.TestScript, bool, []string) {
	out := map[string]func(*testscript.TestScript, bool, []string){}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// initialEnvNames are the variables testscript sets up that the
// implementation inherits (with HOME replaced by Setup).
var initialEnvNames = []string{"WORK", "PATH", "HOME", "TMPDIR"}

// Run runs the selected scenarios and returns their results, sorted by
// name. It never hangs: every wait is bounded.
func Run(cfg Config) ([]Result, error) {
	cfg.envNames = initialEnvNames
	caps := cfg.Capabilities
	if caps == nil {
		c, err := Handshake(cfg)
		if err != nil {
			return nil, err
		}
		caps = c.Capabilities()
	}
	cfg.Capabilities = caps
	dir, scenarios, err := cfg.prepare()
	if err != nil {
		return nil, err
	}
	trackDir(dir, true)
	defer func() { os.RemoveAll(dir); trackDir(dir, false) }()
	workRoot, err := os.MkdirTemp("", "apexcheck-work-")
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	trackDir(workRoot, true)
	defer trackDir(workRoot, false)
	if !cfg.KeepWork {
		defer os.RemoveAll(workRoot)
	}

	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = 2 * runtime.GOMAXPROCS(0)
	}
	rt := &runT{sem: make(chan struct{}, parallel), results: map[string]*Result{}, cfg: &cfg, workRoot: workRoot}
	if resolved, err := filepath.EvalSymlinks(workRoot); err == nil {
		// testscript resolves the root the same way before naming work dirs.
		rt.workRoot = resolved
	}
	byName := map[string]Scenario{}
	var files []string
	for _, s := range scenarios {
		byName[s.Name] = s
		if missing := s.Missing(caps); len(missing) > 0 {
			r := Result{Scenario: s, Outcome: Skipped,
				Message: "implementation does not declare " + strings.Join(missing, ", ")}
			rt.record(r)
			continue
		}
		files = append(files, filepath.Join(dir, s.Name+".txtar"))
	}
	rt.scenarios = byName
	if len(files) > 0 {
		testscript.RunT(rt, cfg.params(files, workRoot))
	}
	rt.wg.Wait()
	if cfg.KeepWork {
		// Only the directories of scenarios that did not pass are kept; the
		// root goes too when none is left.
		os.Remove(workRoot)
	}
	out := make([]Result, 0, len(rt.results))
	for _, r := range rt.results {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scenario.Name < out[j].Scenario.Name })
	if len(out) == 0 {
		return nil, errors.New("run: no scenario selected")
	}
	return out, nil
}

// Test runs the scenarios as subtests of t, one per scenario.
func Test(t *testing.T, cfg Config) {
	t.Helper()
	cfg.envNames = initialEnvNames
	caps := cfg.Capabilities
	if caps == nil {
		c, err := Handshake(cfg)
		if err != nil {
			t.Fatalf("handshake with %q: %v", cfg.Impl, err)
		}
		caps = c.Capabilities()
	}
	cfg.Capabilities = caps
	dir, scenarios, err := cfg.prepare()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var files []string
	for _, s := range scenarios {
		if missing := s.Missing(caps); len(missing) > 0 {
			t.Run(s.Name, func(t *testing.T) { t.Skipf("implementation does not declare %s", strings.Join(missing, ", ")) })
			continue
		}
		files = append(files, filepath.Join(dir, s.Name+".txtar"))
	}
	if len(files) == 0 {
		return
	}
	testscript.Run(t, cfg.params(files, ""))
}

// runT implements testscript.T for Run: each scenario runs in its own
// goroutine, at most cap(sem) at once, and its outcome is recorded.
type runT struct {
	cfg       *Config
	sem       chan struct{}
	wg        sync.WaitGroup
	mu        sync.Mutex
	results   map[string]*Result
	scenarios map[string]Scenario
	workRoot  string
	failures  int // results counting toward MaxFail
}

func (r *runT) record(res Result) {
	r.mu.Lock()
	r.results[res.Scenario.Name] = &res
	counts := r.cfg.CountsAsFailure
	if counts == nil {
		counts = func(res Result) bool { return res.Outcome == Failed || res.Outcome == Errored }
	}
	if counts(res) {
		r.failures++
	}
	r.mu.Unlock()
	if r.cfg.OnResult != nil {
		r.cfg.OnResult(res)
	}
}

func (r *runT) Skip(args ...any)  { panic("runT: Skip outside a scenario") }
func (r *runT) Fatal(args ...any) { panic(fmt.Sprint(append([]any{"runT: "}, args...)...)) }
func (r *runT) Parallel()         {}
func (r *runT) Log(args ...any)   {}
func (r *runT) FailNow()          { panic("runT: FailNow outside a scenario") }
func (r *runT) Verbose() bool     { return false }

func (r *runT) Run(name string, f func(testscript.T)) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		r.sem <- struct{}{}
		defer func() { <-r.sem }()
		if n := r.stoppedAfter(); n > 0 {
			r.record(Result{Scenario: r.scenarios[name], Outcome: Skipped,
				Message: fmt.Sprintf("not run: stopped after %d failures", n)})
			return
		}
		st := &scenarioT{name: name}
		if r.cfg.OnStart != nil {
			r.cfg.OnStart(r.scenarios[name])
		}
		start := time.Now()
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer func() {
				if p := recover(); p != nil {
					st.fail(fmt.Sprintf("%s runner panic: %v", ErroredTag, p))
				}
			}()
			f(st)
		}()
		<-done
		res := st.result(r.scenarios[name])
		res.Duration = time.Since(start)
		r.keepWork(name, &res)
		r.record(res)
	}()
}

// stoppedAfter returns the failure count once MaxFail is reached, else 0.
func (r *runT) stoppedAfter() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cfg.MaxFail > 0 && r.failures >= r.cfg.MaxFail {
		return r.failures
	}
	return 0
}

// keepWork keeps the work directory of a scenario that did not pass and
// removes that of one that did, when Config.KeepWork is set (otherwise the
// whole root is removed at the end of the run).
func (r *runT) keepWork(name string, res *Result) {
	if !r.cfg.KeepWork {
		return
	}
	dir := filepath.Join(r.workRoot, "script-"+name)
	if res.Outcome == Failed || res.Outcome == Errored {
		res.WorkDir = dir
		return
	}
	os.RemoveAll(dir)
}

// scenarioT is the testscript.T of one scenario.
type scenarioT struct {
	name    string
	mu      sync.Mutex
	log     strings.Builder
	failed  bool
	skipped bool
	message string
}

func (s *scenarioT) Skip(args ...any) {
	s.mu.Lock()
	s.skipped = true
	s.message = strings.TrimSpace(fmt.Sprint(args...))
	s.mu.Unlock()
	runtime.Goexit()
}

func (s *scenarioT) Fatal(args ...any) {
	s.fail(fmt.Sprint(args...))
	runtime.Goexit()
}

func (s *scenarioT) fail(msg string) {
	s.mu.Lock()
	s.failed = true
	if s.message == "" {
		s.message = msg
	}
	s.mu.Unlock()
}

func (s *scenarioT) Parallel() {}

func (s *scenarioT) Log(args ...any) {
	s.mu.Lock()
	fmt.Fprintln(&s.log, args...)
	s.mu.Unlock()
}

func (s *scenarioT) FailNow() {
	s.fail("")
	runtime.Goexit()
}

func (s *scenarioT) Run(string, func(testscript.T)) { panic("scenarioT: nested Run") }
func (s *scenarioT) Verbose() bool                  { return false }

func (s *scenarioT) result(sc Scenario) Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := Result{Scenario: sc, Log: s.log.String()}
	switch {
	case s.skipped:
		res.Outcome, res.Message = Skipped, s.message
		if m := skipLine(res.Log); m != "" && res.Message == "" {
			res.Message = m
		}
	case s.failed:
		res.Outcome = Failed
		res.Message = failureLine(res.Log, s.message)
		if strings.Contains(res.Log, ErroredTag) || strings.Contains(s.message, ErroredTag) {
			res.Outcome = Errored
		}
	default:
		res.Outcome = Passed
	}
	return res
}

// failureLine picks the scenario's FAIL line out of its log.
func failureLine(log, fallback string) string {
	lines := strings.Split(log, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "FAIL:") {
			rest := []string{strings.TrimSpace(l)}
			for _, more := range lines[i+1:] {
				if strings.HasPrefix(more, "> ") || strings.HasPrefix(more, "[") || strings.HasPrefix(more, "#") {
					break
				}
				rest = append(rest, more)
			}
			return strings.TrimSpace(strings.Join(rest, "\n"))
		}
	}
	return strings.TrimSpace(fallback)
}

func skipLine(log string) string {
	for _, l := range strings.Split(log, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "SKIP") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}
