package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
)

// TestMergeCoreCertifies merges a three-shard run of the core profile
// into one core certificate: merge reads the profile from the shards'
// headers, asks them to cover the core scenarios only, and certifies
// under core (issue 17: it used to count every apex scenario missing).
func TestMergeCoreCertifies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the core profile against the reference")
	}
	all, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		t.Fatal(err)
	}
	core := suite.Core.Scenarios(all)
	files, codes := shardReports(t, 3, "--profile", "core", "--certify")
	for i, c := range codes {
		if c != ExitConformant {
			t.Errorf("shard %d exit %d", i+1, c)
		}
	}
	out := t.TempDir()
	cert := filepath.Join(out, "certificate.json")
	merged := filepath.Join(out, "merged.jsonl")
	code, stdout, stderr := run(t, append([]string{"merge", "--certify", "--certificate", cert, "--json", merged}, files...)...)
	if code != ExitConformant || !strings.Contains(stdout, "apexcheck certificate: CERTIFIED") {
		t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
	}
	var c verdict.Certificate
	data, _ := os.ReadFile(cert)
	if err := json.Unmarshal(data, &c); err != nil || !c.Certified || c.Profile != suite.Core ||
		c.Totals.Passed != len(core) || c.Totals.Total != len(core) {
		t.Errorf("certificate %s (%v), want core certified with %d scenarios passed", data, err, len(core))
	}
	header, scenarios, _ := readJSONLines(t, merged)
	if header["profile"] != string(suite.Core) || len(scenarios) != len(core) {
		t.Errorf("merged report: profile %v and %d scenarios, want core and %d", header["profile"], len(scenarios), len(core))
	}
}

// TestMergeCoreOfCheckedInReports narrows every checked-in apex report of
// docs/reports to the core profile and judges it against the tool's core
// ledger, whose entries were reviewed from runs of the core profile itself:
// the derivation that make docs and certify-third-parties rely on (docs/ci.md,
// "Both profiles from one run"), on real reports with failures, skips and
// errored scenarios. Each narrowed scenario must keep the apex run's outcome,
// and the whole must agree with the checked-in core report.
func TestMergeCoreOfCheckedInReports(t *testing.T) {
	ledgers := map[string]string{ // report name → adapters/ directory ("" for the reference, which has none)
		"apexcheck-reference":  "",
		"codex-shell-tool-mcp": "codex",
		"desktop-commander":    "desktop-commander",
		"gemini-cli-core":      "gemini",
		"mcp-server-commands":  "mcp-server-commands",
		"pi-coding-agent":      "pi",
		"qwen-code":            "qwen",
	}
	root := filepath.Join("..", "..")
	reports, err := filepath.Glob(filepath.Join(root, "docs", "reports", "*.apex.jsonl"))
	if err != nil || len(reports) == 0 {
		t.Fatalf("no apex reports in docs/reports (%v)", err)
	}
	all, err := suite.LoadScenarios(embedded.Scripts, ".")
	if err != nil {
		t.Fatal(err)
	}
	core := map[string]bool{}
	for _, sc := range suite.Core.Scenarios(all) {
		core[sc.Name] = true
	}
	for _, apex := range reports {
		name := strings.TrimSuffix(filepath.Base(apex), ".apex.jsonl")
		dir, ok := ledgers[name]
		if !ok {
			t.Errorf("%s: a report of a tool this test does not know: add its ledger directory", apex)
			continue
		}
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "core.jsonl")
			args := []string{"merge", "--profile", "core", "--certify", "--json", out}
			if dir != "" {
				args = append(args, "--expect", filepath.Join(root, "adapters", dir, "expected-core.json"))
			}
			code, stdout, stderr := run(t, append(args, apex)...)
			if code != ExitConformant {
				// Exit 2 for a report of another suite: docs/reports must be
				// rerun (make docs) whenever a scenario changes.
				t.Fatalf("merge --profile core of %s: exit %d, want %d (the ledger matched, or the reference certified)\n%s%s",
					apex, code, ExitConformant, stdout, stderr)
			}
			_, fromApex, _ := readJSONLines(t, apex)
			header, narrowed, _ := readJSONLines(t, out)
			_, checkedIn, _ := readJSONLines(t, filepath.Join(root, "docs", "reports", name+".core.jsonl"))
			if header["profile"] != string(suite.Core) || len(narrowed) != len(core) {
				t.Errorf("narrowed report: profile %v and %d scenarios, want core and %d", header["profile"], len(narrowed), len(core))
			}
			for sc, m := range narrowed {
				if !core[sc] {
					t.Errorf("%s is not a core scenario", sc)
				}
				if m["outcome"] != fromApex[sc]["outcome"] {
					t.Errorf("%s: %v narrowed, %v in the apex run", sc, m["outcome"], fromApex[sc]["outcome"])
				}
				if m["outcome"] != checkedIn[sc]["outcome"] {
					t.Errorf("%s: %v narrowed, %v in the checked-in core report", sc, m["outcome"], checkedIn[sc]["outcome"])
				}
			}
		})
	}
}
