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
