package mutate

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseTriage(t *testing.T) {
	good := `# survivors
ref/call/call.go:22:str-empty:0 equivalent: Kind values are compared, never shown

ref/tool/tool.go:10:drop:0 scenario: exec_something
`
	tri, err := ParseTriage(strings.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if v := tri["ref/call/call.go:22:str-empty:0"]; !v.Equivalent || v.Reason != "Kind values are compared, never shown" {
		t.Errorf("equivalent entry = %+v", v)
	}
	if v := tri["ref/tool/tool.go:10:drop:0"]; v.Equivalent || v.Scenario != "exec_something" {
		t.Errorf("scenario entry = %+v", v)
	}
	bad := []struct{ text, want string }{
		{"justanid", "line 1"},
		{"a:1:drop:0 equivalent:", "no verdict"},
		{"a:1:drop:0 maybe: x", "want equivalent, scenario or missing"},
		{"a:1:drop equivalent: x", "not a mutant id"},
		{"a:1:drop:0 scenario: two names", "not one name"},
		{"a:1:drop:0 equivalent: x\na:1:drop:0 equivalent: y", "line 2: \"a:1:drop:0\" triaged twice"},
	}
	for _, b := range bad {
		if _, err := ParseTriage(strings.NewReader(b.text)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("ParseTriage(%q) = %v, want an error containing %q", b.text, err, b.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	mk := func(file string, line int, st Status) Result {
		m := Mutant{File: file, Line: line, Op: "drop", ID: file + ":" + strconv.Itoa(line) + ":drop:0"}
		return Result{Mutant: m, Status: st, Build: time.Second, Run: time.Second}
	}
	var results []Result
	for i := 0; i < 18; i++ {
		results = append(results, mk("ref/a/a.go", 100+i, Killed))
	}
	results = append(results,
		mk("ref/a/a.go", 1, TimedOut),
		mk("ref/a/a.go", 2, Uncompilable),
		mk("ref/a/a.go", 3, Survived), // equivalent
		mk("ref/b/b.go", 4, Survived), // untriaged
	)
	tri := Triage{"ref/a/a.go:3:drop:0": {Equivalent: true, Reason: "r"}}
	s := Summarize(results, tri)
	a := s.ByPackage["ref/a"]
	if a.Mutants != 21 || a.Killed != 19 || a.TimedOut != 1 || a.Uncompilable != 1 || a.Survived != 1 || a.Equivalent != 1 {
		t.Errorf("ref/a tally = %+v", *a)
	}
	if a.KillRate() != 1 {
		t.Errorf("ref/a kill rate = %v, want 1 (its only survivor is equivalent)", a.KillRate())
	}
	if s.Total.Untriaged != 1 || s.OK() {
		t.Errorf("an untriaged survivor must fail the run: %+v", s.Total)
	}

	// Triaged as killed by a scenario but surviving: stale, fails.
	tri["ref/b/b.go:4:drop:0"] = Verdict{Scenario: "x_y"}
	if s := Summarize(results, tri); s.Total.StaleScenario != 1 || s.OK() {
		t.Errorf("a survivor triaged as killed must fail the run: %+v", s.Total)
	}
	// Triaged equivalent: passes, with 19 of 19 non-equivalent killed.
	tri["ref/b/b.go:4:drop:0"] = Verdict{Equivalent: true, Reason: "r"}
	if s := Summarize(results, tri); !s.OK() {
		t.Errorf("all triaged and all killed must pass: %+v", s.Total)
	}
	// Below 95%: one real survivor among 19 kills is fine (95%), two are not.
	low := append(results[:len(results):len(results)], mk("ref/b/b.go", 5, Survived), mk("ref/b/b.go", 6, Survived))
	tri["ref/b/b.go:5:drop:0"] = Verdict{Equivalent: true, Reason: "r"}
	tri["ref/b/b.go:6:drop:0"] = Verdict{Equivalent: true, Reason: "r"}
	if s := Summarize(low, tri); !s.OK() {
		t.Errorf("equivalents do not count against the rate: %+v", s.Total)
	}
	// Missing: acknowledged, but open: it counts against the rate. One
	// among 19 kills keeps 95%, two do not.
	tri["ref/b/b.go:4:drop:0"] = Verdict{Missing: true, Reason: "r"}
	if s := Summarize(results, tri); s.Total.Missing != 1 || s.Total.Untriaged != 0 || !s.OK() || s.Total.KillRate() != 0.95 {
		t.Errorf("one missing scenario among 19 kills: %+v, rate %v", s.Total, s.Total.KillRate())
	}
	tri["ref/b/b.go:5:drop:0"] = Verdict{Missing: true, Reason: "r"}
	if s := Summarize(low, tri); s.OK() {
		t.Errorf("two missing scenarios among 19 kills must fail the run: %+v", s.Total)
	}
	// Inconclusive: neither killed nor survived, and the run cannot pass
	// while one is undecided.
	tri["ref/b/b.go:4:drop:0"] = Verdict{Equivalent: true, Reason: "r"}
	undecided := append(results[:len(results):len(results)], mk("ref/b/b.go", 7, Inconclusive))
	if s := Summarize(undecided, tri); s.Total.Inconclusive != 1 || s.Total.Killed != 19 || s.Total.Survived != 2 || s.OK() ||
		len(s.Inconclusive) != 1 {
		t.Errorf("an inconclusive mutant must count neither way and fail the run: %+v", s.Total)
	}
	var out strings.Builder
	Summarize(undecided, Triage{}).Write(&out)
	for _, want := range []string{"ref/a ", "ref/b ", "UNTRIAGED", "ref/b/b.go:4:drop:0", "1 mutant(s) inconclusive", "  ref/b/b.go:7:drop:0"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestKillRateThreshold(t *testing.T) {
	for _, tt := range []struct {
		killed, survived, equivalent int
		ok                           bool
	}{
		{19, 1, 0, true},
		{18, 2, 0, false},
		{18, 3, 1, false},
		{19, 3, 2, true},
		{0, 0, 0, true},
	} {
		tl := Tally{Killed: tt.killed, Survived: tt.survived, Equivalent: tt.equivalent}
		if got := tl.KillRate() >= MinKillRate; got != tt.ok {
			t.Errorf("%+v: rate %.3f, ok %v, want %v", tt, tl.KillRate(), got, tt.ok)
		}
	}
}

// TestTriageNamesLiveMutants checks that every entry of the checked-in
// triage list names a mutant the current ref/ still has, and every scenario
// it names exists. An entry left behind by an edit of its function would
// otherwise stand for nothing, and a reader would trust a verdict about code
// that is gone.
func TestTriageNamesLiveMutants(t *testing.T) {
	root := filepath.Join("..", "..")
	f, err := os.Open("triage.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tri, err := ParseTriage(f)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Root: root}
	for pkg := range Areas {
		cfg.Packages = append(cfg.Packages, pkg)
	}
	byPkg, err := Collect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]bool{}
	for _, ms := range byPkg {
		for _, m := range ms {
			live[m.ID] = true
		}
	}
	var stale []string
	for id, v := range tri {
		if !live[id] {
			stale = append(stale, id)
		}
		if v.Scenario != "" {
			if _, err := os.Stat(filepath.Join(root, "testdata", "scripts", v.Scenario+".txtar")); err != nil {
				t.Errorf("%s: scenario %s does not exist", id, v.Scenario)
			}
		}
	}
	sort.Strings(stale)
	for _, id := range stale {
		t.Errorf("triage.txt: %s names no mutant of ref/ (its code changed: rerun the package and triage again)", id)
	}
}
