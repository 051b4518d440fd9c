package suite

import (
	"strings"
	"testing"
)

func TestParseScenario(t *testing.T) {
	tests := []struct {
		name, data string
		want       Scenario
		err        string
	}{
		{"full", "# Says what.\n# clauses: EXEC-1 EXEC-21\n# requires: abort shell-path\n\ncall '{}'\n",
			Scenario{Name: "exec_x", Area: "exec", Summary: "Says what.", Clauses: []string{"EXEC-1", "EXEC-21"}, Requires: []string{"abort", "shell-path"}}, ""},
		{"no clauses", "# Says what.\ncall '{}'\n", Scenario{}, "cites no clauses"},
		{"bad id", "# x\n# clauses: exec-1\n", Scenario{}, "malformed clause ID"},
		{"header ends at first command", "# x\n# clauses: CALL-1\ncall '{}'\n# clauses: CALL-2\n",
			Scenario{Name: "exec_x", Area: "exec", Summary: "x", Clauses: []string{"CALL-1"}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScenario("dir/exec_x.txtar", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want.Name || got.Area != tt.want.Area || got.Summary != tt.want.Summary ||
				strings.Join(got.Clauses, " ") != strings.Join(tt.want.Clauses, " ") ||
				strings.Join(got.Requires, " ") != strings.Join(tt.want.Requires, " ") {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseClauses(t *testing.T) {
	md := "# Exec\n\n**EXEC-1** (MUST; seed bash.ts) Runs\n`bash -lc`.\n\n**EXEC-2** (SHOULD; derived: because) Two.\n\nNot a clause.\n"
	got, err := parseClauses("exec.md", []byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "EXEC-1" || got[0].Level != "MUST" || got[0].Text != "Runs `bash -lc`." ||
		got[1].Provenance != "derived: because" {
		t.Fatalf("got %+v", got)
	}
	if _, err := parseClauses("x.md", []byte("**EXEC-3** (MUST) no provenance\n")); err == nil {
		t.Fatal("a clause without provenance was accepted")
	}
	wrapped := "**EXEC-4** (MUST; seed a long\nprovenance) Text.\n"
	if got, err := parseClauses("x.md", []byte(wrapped)); err != nil || len(got) != 1 || got[0].Provenance != "seed a long provenance" {
		t.Fatalf("a header wrapped over two lines: %+v, %v", got, err)
	}
	if _, err := parseClauses("x.md", []byte("**EXEC-5** (MUSTN'T; x) Text.\n")); err == nil {
		t.Fatal("a malformed clause header was skipped silently")
	}
}

func TestLessID(t *testing.T) {
	if !lessID("EXEC-2", "EXEC-10") || lessID("EXEC-10", "EXEC-2") || !lessID("CALL-9", "EXEC-1") {
		t.Fatal("clause IDs are not ordered by area, then number")
	}
}
