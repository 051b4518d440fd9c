package verdict

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

// mergeSuite is the suite the merge tests certify against.
var mergeSuite = []suite.Scenario{scen("call_a", "CALL-1"), scen("call_b", "CALL-2"), scen("exec_c", "EXEC-1"), scen("exec_d", "EXEC-3")}

const mergeDigest = "sha256:0123456789abcdef0123"

// shard is a report of the named scenarios of mergeSuite, all passed.
func shard(started time.Time, names ...string) *Report {
	rep := &Report{Kit: "9.9.9", Suite: mergeDigest,
		Implementation: protocol.Implementation{Name: "impl", Version: "1.2", Language: "go"},
		Capabilities:   []string{"abort"}, Command: "./impl", ScriptDir: "testdata/scripts",
		Started: started, Duration: 2 * time.Second}
	for _, n := range names {
		for _, s := range mergeSuite {
			if s.Name == n {
				rep.Results = append(rep.Results, suite.Result{Scenario: suite.Scenario{Name: n, Clauses: s.Clauses, Area: s.Area}, Outcome: suite.Passed, Duration: time.Second})
			}
		}
	}
	return rep
}

// roundTrip writes a report as JSON Lines, lets edit change the text, and
// reads it back.
func roundTrip(t *testing.T, name string, rep *Report, edit func(string) string) (*ShardReport, error) {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteJSONLines(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if edit != nil {
		text = edit(text)
	}
	return ReadShardReport(strings.NewReader(text), name)
}

func TestMergeReports(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := shard(t0, "call_b", "exec_d")
	a.Results[1].Outcome, a.Results[1].Message, a.Results[1].Log = suite.Failed, "FAIL: exec_d.txtar:4: text differs", "> call\n"
	b := shard(t0.Add(time.Second), "call_a")
	c := shard(t0.Add(-time.Second), "exec_c")
	c.Command = "/other/path/impl" // runners differ; the run is the same
	var shards []*ShardReport
	for i, rep := range []*Report{a, b, c} {
		sr, err := roundTrip(t, string(rune('a'+i))+".jsonl", rep, nil)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, sr)
	}
	m, err := MergeReports(shards, mergeSuite, mergeDigest)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range m.Results {
		names = append(names, r.Scenario.Name+":"+string(r.Outcome))
	}
	if got := strings.Join(names, " "); got != "call_a:passed call_b:passed exec_c:passed exec_d:failed" {
		t.Errorf("merged results %s", got)
	}
	d := m.Results[3]
	if d.Message != "FAIL: exec_d.txtar:4: text differs" || d.Log != "> call\n" || d.Scenario.Summary != "summary of exec_d" {
		t.Errorf("exec_d lost its failure or metadata: %+v", d)
	}
	if !m.Started.Equal(t0.Add(-time.Second)) || m.Duration != 4*time.Second || m.Command != "./impl" ||
		m.Implementation.Name != "impl" || m.Kit != "9.9.9" || m.Suite != mergeDigest || m.ScriptDir != "testdata/scripts" {
		t.Errorf("merged report %+v", m)
	}
	cert := Certify(m, mergeSuite, []suite.Clause{{ID: "EXEC-1", Level: "MUST"}, {ID: "EXEC-3", Level: "MUST"}}, t0)
	if cert.Certified || len(cert.Denied) != 1 || !strings.HasPrefix(cert.Denied[0], "exec_d (MUST EXEC-3) failed") {
		t.Errorf("certificate of the merged run: %+v", cert)
	}
}

// TestMergeRefusals covers every reason a merge is refused; each error
// must name what is wrong.
// profileMember is the header's profile member as the JSON writer spells it.
var profileMember = regexp.MustCompile(`"profile":"[^"]*"`)

func TestMergeRefusals(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	whole := func() []*Report { return []*Report{shard(t0, "call_a", "call_b"), shard(t0, "exec_c", "exec_d")} }
	tests := []struct {
		name   string
		change func(reps []*Report) []*Report
		edit   func(i int, text string) string
		want   []string
	}{
		{name: "different suites",
			change: func(r []*Report) []*Report { r[1].Suite = "sha256:ffffffffffffffffffff"; return r },
			want:   []string{"a.jsonl and b.jsonl are not shards of one run", `suite "sha256:0123456789abcdef0123" vs "sha256:ffffffffffffffffffff"`}},
		{name: "not this kit's suite",
			change: func(r []*Report) []*Report { r[0].Suite, r[1].Suite = "sha256:eeee", "sha256:eeee"; return r },
			want:   []string{"a.jsonl is for suite sha256:eeee", "this kit runs suite sha256:0123456789ab"}},
		{name: "different implementations",
			change: func(r []*Report) []*Report { r[1].Implementation.Name = "other"; return r },
			want:   []string{"not shards of one run", `"name":"impl"`, `"name":"other"`}},
		{name: "different implementation versions",
			change: func(r []*Report) []*Report { r[1].Implementation.Version = "1.3"; return r },
			want:   []string{"implementation", `"version":"1.2"`, `"version":"1.3"`}},
		{name: "different kits",
			change: func(r []*Report) []*Report { r[1].Kit = "9.9.10"; return r },
			want:   []string{`kit "9.9.9" vs "9.9.10"`}},
		{name: "different capabilities",
			change: func(r []*Report) []*Report { r[1].Capabilities = []string{"abort", "updates"}; return r },
			want:   []string{`capabilities ["abort"] vs ["abort","updates"]`}},
		{name: "different profiles",
			edit: func(i int, text string) string {
				return profileMember.ReplaceAllString(text, `"profile":"`+[]string{"apex", "core"}[i%2]+`"`)
			},
			want: []string{`profile "apex" vs "core"`}},
		{name: "a header member this kit does not know",
			// As a later kit might add: it must agree too.
			edit: func(i int, text string) string {
				return strings.Replace(text, `{"type":"header",`, `{"type":"header","later":"p`+string(rune('0'+i))+`",`, 1)
			},
			want: []string{`later "p0" vs "p1"`}},
		{name: "a missing shard",
			change: func(r []*Report) []*Report { return r[:1] },
			want:   []string{"do not cover the suite exactly once", "2 scenarios in no report: exec_c, exec_d"}},
		{name: "the same shard twice",
			change: func(r []*Report) []*Report { return append(r, shard(t0, "call_b")) },
			want:   []string{"1 scenarios in more than one report: call_b (in a.jsonl and c.jsonl)"}},
		{name: "a scenario of another suite",
			change: func(r []*Report) []*Report {
				r[1].Results = append(r[1].Results, suite.Result{Scenario: scen("exec_z", "EXEC-9"), Outcome: suite.Passed})
				return r
			},
			want: []string{"1 scenarios this suite does not have: exec_z (in b.jsonl)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reps := whole()
			if tt.change != nil {
				reps = tt.change(reps)
			}
			var shards []*ShardReport
			for i, rep := range reps {
				sr, err := roundTrip(t, string(rune('a'+i))+".jsonl", rep, func(s string) string {
					if tt.edit != nil {
						return tt.edit(i, s)
					}
					return s
				})
				if err != nil {
					t.Fatal(err)
				}
				shards = append(shards, sr)
			}
			_, err := MergeReports(shards, mergeSuite, mergeDigest)
			if !errors.Is(err, ErrMerge) {
				t.Fatalf("merged: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
	if _, err := MergeReports(nil, mergeSuite, mergeDigest); !errors.Is(err, ErrMerge) {
		t.Errorf("no reports: %v", err)
	}
}

// TestReadShardReportRefusals checks that a report that is not whole is
// refused, naming the file and line.
func TestReadShardReportRefusals(t *testing.T) {
	rep := shard(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "call_a", "call_b")
	lines := func(s string) []string { return strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") }
	tests := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"empty", func(string) string { return "" }, "no header line"},
		{"truncated", func(s string) string { l := lines(s); return strings.Join(l[:len(l)-1], "") }, "no footer line: the report is truncated"},
		{"a line lost", func(s string) string { l := lines(s); return l[0] + l[2] + l[3] }, "the footer counts 2 passed"},
		{"not JSON", func(s string) string { return s + "garbage\n" }, "x.jsonl:5:"},
		{"scenario before header", func(s string) string { l := lines(s); return l[1] + l[0] + l[2] + l[3] }, "x.jsonl:1: a scenario before the header"},
		{"scenario twice", func(s string) string { l := lines(s); return l[0] + l[1] + l[1] + l[3] }, `scenario "call_a" is empty or listed twice`},
		{"unknown outcome", func(s string) string { return strings.Replace(s, `"outcome":"passed"`, `"outcome":"won"`, 1) }, `outcome "won"`},
		{"after the footer", func(s string) string { l := lines(s); return s + l[1] }, "scenario line after the footer"},
		{"two headers", func(s string) string { l := lines(s); return l[0] + s }, "a second header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := roundTrip(t, "x.jsonl", rep, tt.edit)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
	// Lines of a type a later kit adds are ignored.
	if sr, err := roundTrip(t, "x.jsonl", rep, func(s string) string {
		l := lines(s)
		return l[0] + `{"type":"note","x":1}` + "\n" + l[1] + l[2] + l[3]
	}); err != nil || len(sr.Report.Results) != 2 {
		t.Errorf("unknown line type: %v", err)
	}
}

// TestMergeKeepsProfile merges shards of a core run: the merged report
// keeps the profile its shards' headers name, and the shards need cover
// only the core scenarios (issue 17: every apex scenario was counted
// missing, so no core run could be merged).
func TestMergeKeepsProfile(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	all := append([]suite.Scenario(nil), mergeSuite...)
	all[0].Profiles = []suite.Profile{suite.Core} // call_a
	all[2].Profiles = []suite.Profile{suite.Core} // exec_c
	var shards []*ShardReport
	for i, names := range [][]string{{"call_a"}, {"exec_c"}, nil} {
		rep := shard(t0, names...)
		rep.Profile = suite.Core
		sr, err := roundTrip(t, string(rune('a'+i))+".jsonl", rep, nil)
		if err != nil {
			t.Fatal(err)
		}
		shards = append(shards, sr)
	}
	m, err := MergeReports(shards, all, mergeDigest)
	if err != nil {
		t.Fatal(err)
	}
	if m.Profile != suite.Core || len(m.Results) != 2 {
		t.Errorf("merged profile %q with %d results, want core with 2", m.Profile, len(m.Results))
	}
	if c := Certify(m, all, []suite.Clause{{ID: "CALL-1", Level: "MUST", Core: true}}, t0); !c.Certified || c.Profile != suite.Core {
		t.Errorf("certificate of the merged core run: %+v", c)
	}
	// An apex scenario in a core shard is not of that run.
	rep := shard(t0, "call_b")
	rep.Profile = suite.Core
	sr, err := roundTrip(t, "d.jsonl", rep, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MergeReports(append(shards, sr), all, mergeDigest); err == nil || !strings.Contains(err.Error(), "call_b (in d.jsonl)") {
		t.Errorf("a core merge with an apex scenario: %v", err)
	}
}

// TestNarrow checks that an apex report gives the core verdict from its
// core scenarios alone, and that a core report cannot give apex's.
func TestNarrow(t *testing.T) {
	coreScenario := suite.Scenario{Name: "exec_core_x", Profiles: []suite.Profile{suite.Core}}
	apexScenario := suite.Scenario{Name: "exec_x"}
	apex := &Report{Profile: suite.Apex, Results: []suite.Result{
		{Scenario: apexScenario, Outcome: suite.Failed},
		{Scenario: coreScenario, Outcome: suite.Passed},
	}}
	if err := Narrow(apex, suite.Core); err != nil {
		t.Fatal(err)
	}
	if apex.Profile != suite.Core || len(apex.Results) != 1 || apex.Results[0].Scenario.Name != "exec_core_x" {
		t.Errorf("narrowed to core: profile %q, results %v; want core and exec_core_x alone", apex.Profile, apex.Results)
	}
	core := &Report{Profile: suite.Core, Results: []suite.Result{{Scenario: coreScenario, Outcome: suite.Passed}}}
	if err := Narrow(core, suite.Apex); !errors.Is(err, ErrMerge) {
		t.Errorf("narrowing a core report to apex: err %v, want ErrMerge", err)
	}
	if err := Narrow(core, suite.Core); err != nil || len(core.Results) != 1 {
		t.Errorf("narrowing a core report to core: err %v, %d results; want no change", err, len(core.Results))
	}
}
