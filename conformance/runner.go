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

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/conformance/internal/linediff"
	"github.com/apexcheck/apexcheck/conformance/script"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/rogpeppe/go-internal/testscript"
)

// Config configures a run.
type Config struct {
	// Impl is the implementation's command line.
	Impl []string
	// Scripts holds the scenarios; Dir is their directory within it.
	Scripts fs.FS
	Dir     string
	// Run selects scenarios by name; nil runs all.
	Run *regexp.Regexp
	// Profile selects the scenarios of one profile; empty is [suite.Apex], every
	// scenario.
	Profile suite.Profile
	// Select, when set, further selects scenarios (for example a shard of
	// the suite, see [suite.Shard]); nil selects all that Run selects.
	Select func(suite.Scenario) bool
	// Parallel is the number of scenarios run at once; 0 means GOMAXPROCS×2.
	Parallel int
	// Bound overrides [client.DefaultBound].
	Bound time.Duration
	// KeepWork keeps the work directory of failed and errored scenarios,
	// with the scenario (KeptScenario) and a transcript of its protocol
	// messages (KeptTranscript) in it.
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
	OnStart  func(suite.Scenario)
	OnResult func(suite.Result)
	// MaxFail, when positive, stops the run after that many failures: no
	// scenario starts once they are reached, and every scenario not started
	// is reported skipped ("not run: stopped after N failures"). Scenarios
	// already running finish and are reported as they end.
	MaxFail int
	// CountsAsFailure decides which results count toward MaxFail; nil
	// counts every failed or errored result. A caller with an expectation
	// ledger counts only the unexpected ones.
	CountsAsFailure func(suite.Result) bool
	// Tracker, when set, tracks the run's implementations, processes and
	// temporary directories, so that [client.Tracker.Interrupt] can end them when
	// the run is stopped by a signal.
	Tracker *client.Tracker
}

func (c *Config) bound() time.Duration {
	if c.Bound > 0 {
		return c.Bound
	}
	return client.DefaultBound
}

// script is what the scenario commands need of the run.
func (cfg *Config) script() *script.Config {
	return &script.Config{Impl: cfg.Impl, Bound: cfg.Bound, SelfExe: cfg.SelfExe,
		Capabilities: cfg.Capabilities, Tracker: cfg.Tracker, Transcripts: cfg.KeepWork}
}

// Handshake starts the implementation once, outside any scenario, to learn
// its identity and capabilities.
func Handshake(cfg Config) (*client.Client, error) {
	dir, err := os.MkdirTemp("", "apexcheck-handshake-")
	if err != nil {
		return nil, fmt.Errorf("handshake: %w", err)
	}
	cfg.Tracker.TrackDir(dir, true)
	defer func() { os.RemoveAll(dir); cfg.Tracker.TrackDir(dir, false) }()
	return client.Handshake(cfg.Impl, append(os.Environ(), "HOME="+dir, "TMPDIR="+dir), dir, cfg.bound(),
		client.Options{Tracker: cfg.Tracker})
}

// prepare extracts the scenarios to disk (testscript reads files) and
// selects those to run.
func (cfg *Config) prepare() (dir string, selected []suite.Scenario, err error) {
	all, err := suite.LoadScenarios(cfg.Scripts, cfg.Dir)
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

// Run runs the selected scenarios and returns their results, sorted by
// name. It never hangs: every wait is bounded.
func Run(cfg Config) ([]suite.Result, error) {
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
	cfg.Tracker.TrackDir(dir, true)
	defer func() { os.RemoveAll(dir); cfg.Tracker.TrackDir(dir, false) }()
	workRoot, err := os.MkdirTemp("", "apexcheck-work-")
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	cfg.Tracker.TrackDir(workRoot, true)
	defer cfg.Tracker.TrackDir(workRoot, false)
	if !cfg.KeepWork {
		defer os.RemoveAll(workRoot)
	}

	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = 2 * runtime.GOMAXPROCS(0)
	}
	rt := &runT{sem: make(chan struct{}, parallel), results: map[string]*suite.Result{}, cfg: &cfg, workRoot: workRoot}
	if resolved, err := filepath.EvalSymlinks(workRoot); err == nil {
		// testscript resolves the root the same way before naming work dirs.
		rt.workRoot = resolved
	}
	byName := map[string]suite.Scenario{}
	var files []string
	for _, s := range scenarios {
		byName[s.Name] = s
		if missing := s.Missing(caps); len(missing) > 0 {
			r := suite.Result{Scenario: s, Outcome: suite.Skipped,
				Message: "implementation does not declare " + strings.Join(missing, ", ")}
			rt.record(r)
			continue
		}
		files = append(files, filepath.Join(dir, s.Name+".txtar"))
	}
	rt.scenarios = byName
	if len(files) > 0 {
		testscript.RunT(rt, cfg.script().Params(files, workRoot))
	}
	rt.wg.Wait()
	if cfg.KeepWork {
		// Only the directories of scenarios that did not pass are kept; the
		// root goes too when none is left.
		os.Remove(workRoot)
	}
	out := make([]suite.Result, 0, len(rt.results))
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
	testscript.Run(t, cfg.script().Params(files, ""))
}

// runT implements testscript.T for Run: each scenario runs in its own
// goroutine, at most cap(sem) at once, and its outcome is recorded.
type runT struct {
	cfg       *Config
	sem       chan struct{}
	wg        sync.WaitGroup
	mu        sync.Mutex
	results   map[string]*suite.Result
	scenarios map[string]suite.Scenario
	workRoot  string
	failures  int // results counting toward MaxFail
}

func (r *runT) record(res suite.Result) {
	r.mu.Lock()
	r.results[res.Scenario.Name] = &res
	counts := r.cfg.CountsAsFailure
	if counts == nil {
		counts = func(res suite.Result) bool { return res.Outcome == suite.Failed || res.Outcome == suite.Errored }
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
			r.record(suite.Result{Scenario: r.scenarios[name], Outcome: suite.Skipped,
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
					st.fail(fmt.Sprintf("%s runner panic: %v", suite.ErroredTag, p))
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

// Files that a kept work directory holds besides the scenario's own: the
// scenario as shipped, and the transcript of its protocol messages
// (client.Transcript), which apexcheck replay sends again.
const (
	KeptScenario   = "apexcheck-scenario.txtar"
	KeptTranscript = "apexcheck-transcript.jsonl"
)

// keepWork keeps the work directory of a scenario that did not pass and
// removes that of one that did, when Config.KeepWork is set (otherwise the
// whole root is removed at the end of the run). A kept directory gets the
// scenario (KeptScenario) and its transcript (KeptTranscript), so that it
// holds all a porter needs to reproduce the failure by hand.
func (r *runT) keepWork(name string, res *suite.Result) {
	if !r.cfg.KeepWork {
		return
	}
	dir := filepath.Join(r.workRoot, "script-"+name)
	transcript := dir + script.TranscriptSuffix
	if res.Outcome != suite.Failed && res.Outcome != suite.Errored {
		os.RemoveAll(dir)
		os.Remove(transcript)
		return
	}
	res.WorkDir = dir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	if data, err := fs.ReadFile(r.cfg.Scripts, r.scenarios[name].Path); err == nil {
		os.WriteFile(filepath.Join(dir, KeptScenario), data, 0o644)
	}
	os.Rename(transcript, filepath.Join(dir, KeptTranscript))
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

func (s *scenarioT) result(sc suite.Scenario) suite.Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	// cmp's diffs are turned to -want +got, the direction of every other
	// diff a report shows.
	res := suite.Result{Scenario: sc, Log: linediff.WantGot(s.log.String())}
	switch {
	case s.skipped:
		res.Outcome, res.Message = suite.Skipped, s.message
		if m := skipLine(res.Log); m != "" && res.Message == "" {
			res.Message = m
		}
	case s.failed:
		res.Outcome = suite.Failed
		res.Message = failureLine(res.Log, s.message)
		if strings.Contains(res.Log, suite.ErroredTag) || strings.Contains(s.message, suite.ErroredTag) {
			res.Outcome = suite.Errored
		}
	default:
		res.Outcome = suite.Passed
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
