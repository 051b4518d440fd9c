package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
)

// shardReports runs the current suite in n shards against the reference
// with extra flags, and returns the shards' JSON reports and exit codes.
func shardReports(t *testing.T, n int, extra ...string) ([]string, []int) {
	t.Helper()
	dir := t.TempDir()
	var files []string
	var codes []int
	for i := 1; i <= n; i++ {
		file := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		args := append([]string{"--impl", ref, "--progress", "off", "--shard", fmt.Sprintf("%d/%d", i, n), "--json", file}, extra...)
		code, stdout, stderr := run(t, args...)
		if code == ExitUsage {
			t.Fatalf("shard %d/%d: exit %d\n%s%s", i, n, code, stdout, stderr)
		}
		files, codes = append(files, file), append(codes, code)
	}
	return files, codes
}

// TestMergeCertifies is a sharded certification: three shards run with
// --certify --shard, merged into one certificate that says what one
// unsharded --certify run says.
func TestMergeCertifies(t *testing.T) {
	t.Run("certified", func(t *testing.T) {
		// One scenario in each of the three shards.
		useSuite(t, map[string]string{"call_ok": passing, "call_should": should, "call_more": passing})
		files, codes := shardReports(t, 3, "--certify")
		for i, c := range codes {
			if c != ExitConformant {
				t.Errorf("shard %d exit %d", i+1, c)
			}
		}
		out := t.TempDir()
		cert := filepath.Join(out, "certificate.json")
		args := append([]string{"merge", "--certify", "--certificate", cert, "--junit", filepath.Join(out, "junit.xml"),
			"--markdown", filepath.Join(out, "summary.md"), "--badge", filepath.Join(out, "badge.json"),
			"--json", filepath.Join(out, "merged.jsonl")}, files...)
		code, stdout, stderr := run(t, args...)
		if code != ExitConformant || !strings.Contains(stdout, "merging 3 reports of apexcheck-reference") ||
			!strings.Contains(stdout, "apexcheck certificate: CERTIFIED") {
			t.Fatalf("merge: exit %d\n%s%s", code, stdout, stderr)
		}
		var c verdict.Certificate
		data, _ := os.ReadFile(cert)
		if err := json.Unmarshal(data, &c); err != nil || !c.Certified || c.Totals.Passed != 3 || c.Totals.Total != 3 {
			t.Errorf("certificate %s (%v)", data, err)
		}
		_, scenarios, footer := readJSONLines(t, filepath.Join(out, "merged.jsonl"))
		if len(scenarios) != 3 || footer["passed"] != 3.0 {
			t.Errorf("merged report: %v %v", scenarios, footer)
		}
		for _, f := range []string{"junit.xml", "summary.md", "badge.json"} {
			if fi, err := os.Stat(filepath.Join(out, f)); err != nil || fi.Size() == 0 {
				t.Errorf("%s not written: %v", f, err)
			}
		}
	})
	t.Run("denied as an unsharded run denies", func(t *testing.T) {
		mixed(t)
		files, codes := shardReports(t, 3, "--certify")
		failedShards := 0
		for _, c := range codes {
			if c == ExitNotConformant {
				failedShards++
			}
		}
		// exec_fails, exec_errors and exec_needs deny; at least one shard
		// holds one of them, and says so.
		if failedShards == 0 {
			t.Errorf("no shard failed: %v", codes)
		}
		cert := filepath.Join(t.TempDir(), "certificate.txt")
		code, merged, _ := run(t, append([]string{"merge", "--certify", "--certificate", cert}, files...)...)
		if code != ExitNotConformant {
			t.Fatalf("merge: exit %d\n%s", code, merged)
		}
		code, whole, _ := run(t, "--impl", ref, "--progress", "off", "--certify")
		if code != ExitNotConformant {
			t.Fatalf("unsharded: exit %d\n%s", code, whole)
		}
		// Each denial as "scenario (MUST clauses) outcome": how a killed
		// implementation's error reads varies from run to run.
		denied := func(s string) string {
			_, after, _ := strings.Cut(s, "denied by:\n")
			before, _, _ := strings.Cut(after, "\n\n")
			var out []string
			for _, line := range strings.Split(before, "\n") {
				head, _, _ := strings.Cut(line, ":")
				out = append(out, head)
			}
			return strings.Join(out, "\n")
		}
		if denied(merged) == "" || denied(merged) != denied(whole) {
			t.Errorf("merged certificate denies\n%s\nunsharded denies\n%s", denied(merged), denied(whole))
		}
		text, _ := os.ReadFile(cert)
		if !strings.Contains(string(text), "exec_needs (MUST EXEC-2) skipped: implementation does not declare no-such-capability") {
			t.Errorf("certificate:\n%s", text)
		}
	})
}

// TestMergeLedger checks --expect on a merge: the merged run matches the
// ledger as the unsharded run does, and the exit code follows the ledger.
func TestMergeLedger(t *testing.T) {
	mixed(t)
	digest, _ := suite.Digest(embedded.Data, ".")
	ledger := writeLedger(t, digest, "",
		verdict.Expectation{Scenario: "exec_fails", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "known"},
		verdict.Expectation{Scenario: "exec_errors", Outcome: suite.Errored, Clause: "EXEC-1", Reason: "known"})
	files, _ := shardReports(t, 2)
	code, stdout, _ := run(t, append([]string{"merge", "--expect", ledger}, files...)...)
	if code != ExitConformant || !strings.Contains(stdout, "the run matches the ledger") {
		t.Errorf("merge --expect: exit %d\n%s", code, stdout)
	}
	// An unreviewed ledger is refused, as by a run.
	todo := writeLedger(t, digest, "",
		verdict.Expectation{Scenario: "exec_fails", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "TODO: review: FAIL: exec_fails.txtar:5"},
		verdict.Expectation{Scenario: "exec_errors", Outcome: suite.Errored, Clause: "EXEC-1", Reason: "known"})
	code, _, stderr := run(t, append([]string{"merge", "--expect", todo}, files...)...)
	if code != ExitUsage || !strings.Contains(stderr, "1 entry is not reviewed") || !strings.Contains(stderr, "exec_fails") {
		t.Errorf("merge --expect with a TODO reason: exit %d\n%s", code, stderr)
	}
	code, stdout, _ = run(t, "merge", files[0], files[1])
	if code != ExitNotConformant || !strings.Contains(stdout, "FAILED   exec_fails") {
		t.Errorf("merge without a ledger: exit %d\n%s", code, stdout)
	}
}

// TestMergeRefusesCLI checks the refusals at the command line: each exits
// 2 and names the problem.
func TestMergeRefusesCLI(t *testing.T) {
	mixed(t)
	files, _ := shardReports(t, 3)
	other := filepath.Join(t.TempDir(), "other.jsonl")
	data, _ := os.ReadFile(files[2])
	os.WriteFile(other, []byte(strings.Replace(string(data), `"name":"apexcheck-reference"`, `"name":"another"`, 1)), 0o644)
	truncated := filepath.Join(t.TempDir(), "truncated.jsonl")
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"merge"}, "no reports given"},
		{[]string{"merge", "--certificate", "c.txt", files[0]}, "--certificate needs --certify"},
		{[]string{"merge", "/no/such/report.jsonl"}, "no such file"},
		{[]string{"merge", files[0], files[1]}, "scenarios in no report"},
		{[]string{"merge", files[0], files[1], files[2], files[2]}, "in more than one report"},
		{[]string{"merge", files[0], files[1], other}, "not shards of one run"},
		{[]string{"merge", files[0], files[1], truncated}, "truncated"},
		{[]string{"merge", "--expect", "/no/such/ledger.json", files[0], files[1], files[2]}, "expectation ledger"},
		{[]string{"--certify", "--shard", "1/3"}, "give --json FILE"},
		{[]string{"--certify", "--shard", "1/3", "--json", "r.jsonl", "--certificate", "c.txt"}, "--certificate to merge"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, _, stderr := run(t, tt.args...)
			if code != ExitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d and %q in:\n%s", code, ExitUsage, tt.want, stderr)
			}
		})
	}
	// Flags after the reports are read as flags.
	code, stdout, _ := run(t, "merge", files[0], files[1], files[2], "-v")
	if code != ExitNotConformant || !strings.Contains(stdout, "PASSED   call_ok") {
		t.Errorf("merge REPORTS -v: exit %d\n%s", code, stdout)
	}
}
