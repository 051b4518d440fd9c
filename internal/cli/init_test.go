package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/skeleton"
)

// ledgerDir holds the skeletons' reviewed ledgers; `make skeleton-ledgers`
// regenerates them when the suite changes.
const ledgerDir = "../skeleton/ledgers"

func TestInitWritesAndRefuses(t *testing.T) {
	for _, lang := range skeleton.Langs() {
		t.Run(lang, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "adapter")
			code, stdout, stderr := run(t, "init", "--lang", lang, "--dir", dir)
			if code != ExitConformant {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			sk, _ := skeleton.Lookup(lang)
			for _, name := range sk.Names() {
				p := filepath.Join(dir, name)
				data, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(stdout, "wrote "+p) {
					t.Errorf("stdout does not name %s:\n%s", p, stdout)
				}
				if name == sk.Adapter && strings.Count(string(data), "REPLACE THIS FUNCTION") != 1 {
					t.Errorf("%s does not mark exactly one function to replace", name)
				}
			}
			if !strings.Contains(stdout, "apexcheck --impl ") || !strings.Contains(stdout, dir) ||
				!strings.Contains(stdout, " --profile core\n") {
				t.Errorf("stdout does not give the next commands, core first:\n%s", stdout)
			}

			// A porter's edits are never overwritten, and nothing else is
			// written either.
			edited := filepath.Join(dir, sk.Adapter)
			if err := os.WriteFile(edited, []byte("my work"), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr = run(t, "init", "--lang", lang, "--dir", dir)
			if code != ExitUsage || !strings.Contains(stderr, "file exists") || !strings.Contains(stderr, edited) {
				t.Errorf("second init: exit %d\n%s", code, stderr)
			}
			if data, _ := os.ReadFile(edited); string(data) != "my work" {
				t.Errorf("the adapter was overwritten: %q", data)
			}
		})
	}
	for _, args := range [][]string{{"init"}, {"init", "--lang", "cobol"}, {"init", "--lang", "go", "extra"}, {"init", "--nope"}} {
		if code, _, stderr := run(t, args...); code != ExitUsage || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// initSkeleton writes the skeleton of lang into a temporary directory,
// builds it if it needs building, and returns its --impl command line. It
// skips the test when the language's toolchain is missing.
func initSkeleton(t *testing.T, lang string) (impl, dir string) {
	t.Helper()
	tool := map[string]string{"go": "go", "node": "node", "python": "python3"}[lang]
	if _, err := exec.LookPath(tool); err != nil {
		t.Skipf("%s is not installed", tool)
	}
	dir = filepath.Join(t.TempDir(), lang)
	if code, _, stderr := run(t, "init", "--lang", lang, "--dir", dir); code != ExitConformant {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	sk, _ := skeleton.Lookup(lang)
	if sk.Build != "" {
		// go vet too: the Go skeleton is not a package of this module.
		for _, command := range []string{"go vet .", sk.Build} {
			args := strings.Fields(command)
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", command, err, out)
			}
		}
	}
	cmds := sk.Commands(dir)
	impl = strings.TrimPrefix(cmds[len(cmds)-1], "apexcheck --impl ")
	return strings.Trim(impl, "'"), dir
}

// TestInitSkeletonsCertify runs the whole suite against each skeleton as
// `apexcheck init` writes it, checked against its reviewed ledger: every
// protocol scenario it runs passes, and its other failures are exactly
// those listed. When the suite changes, run `make skeleton-ledgers`.
func TestInitSkeletonsCertify(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the suite three times")
	}
	for _, lang := range skeleton.Langs() {
		t.Run(lang, func(t *testing.T) {
			impl, dir := initSkeleton(t, lang)
			report, cert := filepath.Join(dir, "report.jsonl"), filepath.Join(dir, "certificate.json")
			ledger := filepath.Join(ledgerDir, lang+".json")
			code, stdout, stderr := run(t, "--impl", impl, "--progress", "off", "--expect", ledger, "--json", report,
				"--certify", "--certificate", cert)
			if code != ExitConformant {
				t.Fatalf("the %s skeleton does not match %s (exit %d); if the suite changed, run `make skeleton-ledgers` and review the diff\n%s\n%s",
					lang, ledger, code, stderr, stdout)
			}
			// The ledger decides the exit status; the certificate still
			// says what a porter has left to do: every listed failure, and
			// every MUST scenario skipped for an undeclared capability.
			var c verdict.Certificate
			data, _ := os.ReadFile(cert)
			if err := json.Unmarshal(data, &c); err != nil || c.Certified || c.Implementation.Name != "my-bash-tool" {
				t.Errorf("certificate %s (%v)", data, err)
			}
			l, err := verdict.LoadLedger(ledger)
			if err != nil {
				t.Fatal(err)
			}
			denied := strings.Join(c.Denied, "\n")
			for _, e := range l.Expected {
				if !strings.Contains(denied, e.Scenario+" (MUST") {
					t.Errorf("the certificate does not deny for %s:\n%s", e.Scenario, denied)
				}
			}
			if !strings.Contains(denied, "skipped: implementation does not declare background") {
				t.Errorf("the certificate does not deny for skipped MUST scenarios:\n%s", denied)
			}
			header, scenarios, _ := readJSONLines(t, report)
			if caps := header["capabilities"].([]any); len(caps) != 2 || caps[0] != "abort" || caps[1] != "process-tree" {
				t.Errorf("capabilities %v, want the two the skeleton really has: abort process-tree", caps)
			}
			ran := 0
			for name, s := range scenarios {
				if !strings.HasPrefix(name, "proto_") {
					continue
				}
				switch s["outcome"] {
				case "passed":
					ran++
				case "skipped":
					if msg, _ := s["message"].(string); !strings.Contains(msg, "does not declare") {
						t.Errorf("%s skipped, but not for want of a capability: %s", name, msg)
					}
				default:
					t.Errorf("%s %s: %s", name, s["outcome"], s["message"])
				}
			}
			// Handshake, bad requests, concurrency, unknown abort targets,
			// shutdown and end of input: the plumbing a porter keeps.
			if ran < 6 {
				t.Errorf("only %d protocol scenarios ran and passed", ran)
			}
		})
	}
}

// TestInitDefectIsExplained is the porter's first failure: a fresh python
// skeleton with one deliberate defect (the wrong exit status text) fails
// the run, naming the scenario, the expected text and the clauses.
func TestInitDefectIsExplained(t *testing.T) {
	impl, dir := initSkeleton(t, "python")
	adapter := filepath.Join(dir, "adapter.py")
	data, err := os.ReadFile(adapter)
	if err != nil {
		t.Fatal(err)
	}
	good := `"\n\nCommand exited with code %d"`
	if !strings.Contains(string(data), good) {
		t.Fatalf("the python skeleton no longer contains %s", good)
	}
	if err := os.WriteFile(adapter, []byte(strings.Replace(string(data), good, `"\n\nExit code %d"`, 1)), 0o755); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.jsonl")
	code, stdout, _ := run(t, "--impl", impl, "--progress", "off", "--expect", filepath.Join(ledgerDir, "python.json"),
		"--run", "^exec_exit_code$", "--json", report)
	if code != ExitNotConformant {
		t.Fatalf("exit %d, want %d\n%s", code, ExitNotConformant, stdout)
	}
	// The failure names the line, the expected text, a line diff of what
	// came instead, and the clauses.
	for _, want := range []string{"FAILED   exec_exit_code", `exec_exit_code.txtar:5: text 'partial\n\n\nCommand exited with code 3'`,
		"text differs (-want +got)", "-Command exited with code 3\n", "+Exit code 3\n", "EXEC-15 (MUST)", "1 unexpected failures"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	_, scenarios, _ := readJSONLines(t, report)
	s := scenarios["exec_exit_code"]
	if s["expectation"] != "unexpected-failure" || !strings.Contains(strings.Join(anyStrings(s["clauses"]), " "), "EXEC-15") ||
		!strings.Contains(s["reproduce"].(string), "--run '^exec_exit_code$' -v") {
		t.Errorf("report line %v", s)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
