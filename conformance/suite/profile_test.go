package suite

import (
	"strings"
	"testing"
)

func TestParseCoreMarker(t *testing.T) {
	tests := []struct {
		name, md string
		core     bool
		prov     string
		err      string
	}{
		{"apex only", "**EXEC-1** (MUST; seed bash.ts) Text.\n", false, "seed bash.ts", ""},
		{"core", "**EXEC-1** (MUST; core; seed bash.ts) Text.\n", true, "seed bash.ts", ""},
		{"core SHOULD", "**EXEC-1** (SHOULD; core; derived: why; more) Text.\n", true, "derived: why; more", ""},
		{"core without provenance", "**EXEC-1** (MUST; core) Text.\n", false, "", "no provenance"},
		{"core twice", "**EXEC-1** (MUST; core; core; seed x) Text.\n", false, "", "core marker"},
		{"core after provenance", "**EXEC-1** (MUST; seed x; core) Text.\n", false, "seed x; core", ""},
		{"core before level", "**EXEC-1** (core; MUST; seed x) Text.\n", false, "", "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseClauses("exec.md", []byte(tt.md))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Core != tt.core || got[0].Provenance != tt.prov || got[0].Text != "Text." {
				t.Fatalf("got %+v, want core %v, provenance %q", got, tt.core, tt.prov)
			}
		})
	}
}

func TestParseScenarioProfile(t *testing.T) {
	s, err := ParseScenario("d/exec_core_x.txtar", []byte("# x\n# clauses: EXEC-1\n# profile: core\n"))
	if err != nil || len(s.Profiles) != 1 || s.Profiles[0] != Core {
		t.Fatalf("got %+v, %v", s, err)
	}
	for _, bad := range []string{"apex", "cor", "core extra"} {
		if _, err := ParseScenario("d/x_y.txtar", []byte("# x\n# clauses: EXEC-1\n# profile: "+bad+"\n")); err == nil {
			t.Errorf("profile %q accepted", bad)
		}
	}
}

func TestProfileMembership(t *testing.T) {
	plain := Scenario{Name: "exec_x"}
	core := Scenario{Name: "exec_core_x", Profiles: []Profile{Core}}
	clauses := []Clause{{ID: "EXEC-1"}, {ID: "EXEC-2", Core: true}}
	tests := []struct {
		p         Profile
		scenarios string
		clauses   string
	}{
		{Apex, "exec_x exec_core_x", "EXEC-1 EXEC-2"},
		{"", "exec_x exec_core_x", "EXEC-1 EXEC-2"},
		{Core, "exec_core_x", "EXEC-2"},
	}
	for _, tt := range tests {
		var names, ids []string
		for _, s := range tt.p.Scenarios([]Scenario{plain, core}) {
			names = append(names, s.Name)
		}
		for _, c := range tt.p.Clauses(clauses) {
			ids = append(ids, c.ID)
		}
		if strings.Join(names, " ") != tt.scenarios || strings.Join(ids, " ") != tt.clauses {
			t.Errorf("profile %q: scenarios %v, clauses %v; want %s; %s", tt.p, names, ids, tt.scenarios, tt.clauses)
		}
	}
	for in, want := range map[string]Profile{"": Apex, "apex": Apex, "core": Core} {
		if got, err := ParseProfile(in); err != nil || got != want {
			t.Errorf("ParseProfile(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseProfile("CORE"); err == nil {
		t.Error("ParseProfile accepted CORE")
	}
}
