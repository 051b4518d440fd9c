package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/version"
)

// profiled makes Main run a synthetic suite with two profiles: CALL-1 is a
// core clause, proved by the core scenario call_core; every other scenario
// is apex only.
func profiled(t *testing.T) {
	t.Helper()
	core := "# A call runs, whatever its wording.\n# clauses: CALL-1\n# profile: core\n\ncall '{\"command\":\"echo hi\"}'\nstdout hi\n"
	useSuite(t, map[string]string{"call_core": core, "call_ok": passing, "exec_fails": failing})
	spec := fstest.MapFS{"t.md": {Data: []byte("# test spec\n\n" +
		"**CALL-1** (MUST; core; derived: test) A call runs.\n\n" +
		"**EXEC-1** (MUST; derived: test) Output is exact.\n")}}
	embedded.Spec = spec
}

func TestProfileSelectsScenarios(t *testing.T) {
	profiled(t)
	tests := []struct {
		profile string
		code    int
		names   string
	}{
		{"apex", ExitNotConformant, "call_core call_ok exec_fails"},
		{"core", ExitConformant, "call_core"},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			dir := t.TempDir()
			jsonFile, xmlFile, mdFile := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.xml"), filepath.Join(dir, "r.md")
			certFile := filepath.Join(dir, "cert.json")
			code, stdout, stderr := run(t, "--impl", ref, "--profile", tt.profile, "--progress", "off", "--json", jsonFile,
				"--junit", xmlFile, "--markdown", mdFile, "--certify", "--certificate", certFile)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, stdout, stderr)
			}
			if !strings.Contains(stdout, "profile "+tt.profile+")") {
				t.Errorf("the banner does not name the profile:\n%s", stdout)
			}
			header, scenarios, _ := readJSONLines(t, jsonFile)
			if header["profile"] != tt.profile {
				t.Errorf("JSON header profile = %v, want %s", header["profile"], tt.profile)
			}
			var names []string
			for _, n := range strings.Fields(tt.names) {
				if scenarios[n] == nil {
					t.Errorf("%s missing from the report", n)
				}
				names = append(names, n)
			}
			if len(scenarios) != len(names) {
				t.Errorf("report holds %d scenarios, want %v", len(scenarios), names)
			}
			xml, _ := os.ReadFile(xmlFile)
			if !strings.Contains(string(xml), `<property name="profile" value="`+tt.profile+`">`) {
				t.Errorf("JUnit report does not name the profile:\n%s", xml)
			}
			md, _ := os.ReadFile(mdFile)
			if !strings.Contains(string(md), "(profile "+tt.profile+")") {
				t.Errorf("Markdown report does not name the profile:\n%s", md)
			}
			var cert verdict.Certificate
			data, _ := os.ReadFile(certFile)
			if err := json.Unmarshal(data, &cert); err != nil || string(cert.Profile) != tt.profile {
				t.Errorf("certificate profile %q (%v):\n%s", cert.Profile, err, data)
			}
			// Under core the one MUST clause is CALL-1; under apex, both.
			wantMust := map[string]int{"apex": 2, "core": 1}[tt.profile]
			if cert.Totals.MustClauses != wantMust {
				t.Errorf("certificate counts %d MUST clauses, want %d", cert.Totals.MustClauses, wantMust)
			}
		})
	}
}

func TestProfileLedger(t *testing.T) {
	profiled(t)
	digest, _ := suite.Digest(embedded.Data, ".")
	write := func(l verdict.Ledger) string {
		l.Suite, l.Kit = digest, version.Kit
		if l.Expected == nil {
			l.Expected = []verdict.Expectation{}
		}
		data, _ := json.Marshal(l)
		file := filepath.Join(t.TempDir(), "expected.json")
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return file
	}
	fails := verdict.Expectation{Scenario: "exec_fails", Clause: "EXEC-1", Reason: "prints hi"}
	tests := []struct {
		name, profile string
		ledger        string
		code          int
		want          string
	}{
		{"apex ledger under apex", "apex", write(verdict.Ledger{Expected: []verdict.Expectation{fails}}), ExitConformant, "matches the ledger"},
		{"core ledger under core", "core", write(verdict.Ledger{Profile: suite.Core}), ExitConformant, "matches the ledger"},
		{"apex ledger under core", "core", write(verdict.Ledger{}), ExitUsage, "is for profile apex, but this run is profile core"},
		{"core ledger under apex", "apex", write(verdict.Ledger{Profile: suite.Core}), ExitUsage, "is for profile core, but this run is profile apex"},
		{"core ledger listing an apex scenario", "core", write(verdict.Ledger{Profile: suite.Core, Expected: []verdict.Expectation{fails}}),
			ExitUsage, "exec_fails is not a scenario of profile core"},
		{"unknown profile", "core", write(verdict.Ledger{Profile: "portable"}), ExitUsage, `profile "portable"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, "--impl", ref, "--profile", tt.profile, "--progress", "off", "--expect", tt.ledger)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d and %q\n%s\n%s", code, tt.code, tt.want, stdout, stderr)
			}
		})
	}
	// A draft written under core says so, and is accepted under core.
	draft := filepath.Join(t.TempDir(), "draft.json")
	if code, stdout, stderr := run(t, "--impl", ref, "--profile", "core", "--progress", "off", "--write-expect", draft); code != ExitConformant {
		t.Fatalf("draft: exit %d\n%s\n%s", code, stdout, stderr)
	}
	l, err := verdict.LoadLedger(draft)
	if err != nil || l.Profile != suite.Core {
		t.Fatalf("draft ledger profile %q, %v", l.Profile, err)
	}
}

func TestProfileUsage(t *testing.T) {
	profiled(t)
	for _, args := range [][]string{{"--profile", "portable"}, {"list", "--profile", "CORE"}} {
		if code, _, stderr := run(t, args...); code != ExitUsage || !strings.Contains(stderr, "--profile") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, stdout, _ := run(t, "list", "--profile", "core")
	if code != ExitConformant || !strings.Contains(stdout, "call_core") || strings.Contains(stdout, "call_ok") ||
		!strings.Contains(stdout, "(profile core)") {
		t.Errorf("list --profile core: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "explain", "CALL-1")
	if code != ExitConformant || !strings.Contains(stdout, "CALL-1 (MUST; core; derived: test)") ||
		!strings.Contains(stdout, "call_core.txtar  A call runs, whatever its wording.  (profile core)") {
		t.Errorf("explain: exit %d\n%s", code, stdout)
	}
}

// TestReferenceCertifiedCore: the reference passes the core profile
// wholly, and its certificate counts the core MUST clauses only.
func TestReferenceCertifiedCore(t *testing.T) {
	certFile := filepath.Join(t.TempDir(), "cert.json")
	code, stdout, stderr := run(t, "--impl", ref, "--profile", "core", "--progress", "off", "--certify", "--certificate", certFile)
	if code != ExitConformant || !strings.Contains(stdout, "apexcheck certificate: CERTIFIED") || !strings.Contains(stdout, "profile         core") {
		t.Fatalf("the reference is not certified under core: exit %d\n%s\n%s", code, stdout, stderr)
	}
	var cert verdict.Certificate
	data, _ := os.ReadFile(certFile)
	if err := json.Unmarshal(data, &cert); err != nil {
		t.Fatal(err)
	}
	if cert.Totals.Skipped != 0 || cert.Totals.Failed+cert.Totals.Errored != 0 || cert.Totals.MustVerified != cert.Totals.MustClauses {
		t.Errorf("core certificate totals %+v: want every core scenario run and passed, every core MUST clause verified", cert.Totals)
	}
}
