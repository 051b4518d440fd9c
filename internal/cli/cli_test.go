package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/mcpbridge"
	"github.com/apexcheck/apexcheck/internal/mcpbridge/mcpfake"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/internal/broken"
	"github.com/apexcheck/apexcheck/internal/roles"
	"github.com/apexcheck/apexcheck/internal/version"
)

// TestMain lets the test binary play the reference (`serve`), a
// deliberately malformed implementation (`misspoken`) and the broken
// variants of internal/broken (`broken NAME`), so that Main can be pointed
// at each through --impl.
func TestMain(m *testing.M) {
	roles.Dispatch()
	// The MCP bridge (--mcp starts this binary as `mcp-bridge`) and the
	// fake MCP server it bridges to, for TestMCPEndToEnd.
	if len(os.Args) > 1 && os.Args[1] == mcpbridge.Arg {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 2 && os.Args[1] == mcpfake.Arg {
		os.Exit(mcpfake.Main(os.Args[2]))
	}
	if len(os.Args) > 1 && os.Args[1] == "misspoken" {
		os.Exit(serveMisspoken())
	}
	if len(os.Args) > 2 && os.Args[1] == "broken" {
		os.Exit(broken.Main(os.Args[2:]))
	}
	code := m.Run()
	removeKit()
	os.Exit(code)
}

// ref is the reference implementation as an --impl value.
var ref = os.Args[0] + " serve"

// run calls Main and returns its exit code and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// The synthetic suite: scenarios whose outcomes are known in advance, so
// every flag can be checked against exact results in a second or two.
var (
	syntheticSpec = fstest.MapFS{
		"t.md": {Data: []byte("# test spec\n\n" +
			"**CALL-1** (MUST; derived: test) A call runs.\n\n" +
			"**CALL-2** (SHOULD; derived: test) A call should run.\n\n" +
			"**EXEC-1** (MUST; derived: test) Output is exact.\n\n" +
			"**EXEC-2** (MUST; derived: test) A capability nobody has.\n")},
	}
	passing = "# A call runs.\n# clauses: CALL-1\n\ncall '{\"command\":\"echo hi\"}'\ntext 'hi\\n'\n"
	should  = "# A call should run.\n# clauses: CALL-2\n\ncall '{\"command\":\"echo should\"}'\n"
	// failing fails at its line 5.
	failing = "# A deliberate failure.\n# clauses: EXEC-1\n\ncall '{\"command\":\"echo hi\"}'\ntext 'nope\\n'\n"
	// erroring kills the implementation, so its next call errors.
	erroring = "# A deliberate error.\n# clauses: EXEC-1\n\nimpl start\nimpl kill\ncall '{\"command\":\"echo hi\"}'\n"
	needsCap = "# Needs a capability nobody declares.\n# clauses: EXEC-2\n# requires: no-such-capability\n\ncall '{\"command\":\"true\"}'\n"
)

// useSuite makes Main run scripts (name → content) against the synthetic
// spec until the test ends.
func useSuite(t *testing.T, scripts map[string]string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, body := range scripts {
		fsys[name+".txtar"] = &fstest.MapFile{Data: []byte(body)}
	}
	old := embedded
	embedded.Spec, embedded.Scripts, embedded.Data = syntheticSpec, fsys, fsys
	t.Cleanup(func() { embedded = old })
}

// mixed has one scenario of every outcome.
func mixed(t *testing.T) {
	useSuite(t, map[string]string{"call_ok": passing, "call_should": should, "exec_fails": failing,
		"exec_errors": erroring, "exec_needs": needsCap})
}

// readJSONLines reads a JSON Lines report: its header, scenario lines by
// name and footer.
func readJSONLines(t *testing.T, file string) (header map[string]any, scenarios map[string]map[string]any, footer map[string]any) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	scenarios = map[string]map[string]any{}
	sc := bufio.NewScanner(f)
	// A scenario's message quotes what the implementation sent, which may
	// be megabytes (a text past the output limits).
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: line %q is not JSON: %v", file, sc.Text(), err)
		}
		switch m["type"] {
		case "header":
			header = m
		case "scenario":
			scenarios[m["name"].(string)] = m
		case "footer":
			footer = m
		default:
			t.Fatalf("%s: line of unknown type: %v", file, m)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if header == nil || footer == nil {
		t.Fatalf("%s: no header or footer", file)
	}
	return header, scenarios, footer
}

func outcomes(scenarios map[string]map[string]any) map[string]string {
	out := map[string]string{}
	for n, s := range scenarios {
		out[n] = s["outcome"].(string)
	}
	return out
}

// TestReportsOfTheReferenceParse is the acceptance check: a run
// against the reference writes a JUnit file that a JUnit parser accepts
// and a JSON Lines file that a JSON Lines reader accepts, both in Go and,
// where python3 exists, with Python's xml.etree and json. The reference
// is also certified: every applicable MUST scenario passes.
func TestReportsOfTheReferenceParse(t *testing.T) {
	dir := t.TempDir()
	xmlFile, jsonFile := filepath.Join(dir, "out.xml"), filepath.Join(dir, "out.jsonl")
	code, stdout, stderr := run(t, "--impl", ref, "--junit", xmlFile, "--json", jsonFile, "--progress", "off", "--certify")
	if code != ExitConformant || !strings.Contains(stdout, "apexcheck certificate: CERTIFIED") {
		t.Fatalf("the reference is not certified: exit %d\n%s\n%s", code, stdout, stderr)
	}
	header, scenarios, footer := readJSONLines(t, jsonFile)
	digest, _ := suite.Digest(apexcheck.Suite, ".")
	all, _ := suite.LoadScenarios(apexcheck.Scripts, ".")
	if header["kit"] != version.Kit || header["suite"] != digest || header["implementation"].(map[string]any)["name"] != "apexcheck-reference" {
		t.Errorf("header %v", header)
	}
	if len(scenarios) != len(all) || footer["total"] != float64(len(all)) || footer["failed"] != 0.0 || footer["errored"] != 0.0 {
		t.Errorf("%d scenario lines, footer %v; the suite has %d scenarios", len(scenarios), footer, len(all))
	}
	data, err := os.ReadFile(xmlFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests  int `xml:"tests,attr"`
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit file does not parse: %v", err)
	}
	if doc.Tests != len(all) {
		t.Errorf("JUnit counts %d tests, want %d", doc.Tests, len(all))
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Log("python3 not found: checked with Go's parsers only")
		return
	}
	py := `import sys, json, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
cases = root.findall("./testsuite/testcase")
lines = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
assert lines[0]["type"] == "header" and lines[-1]["type"] == "footer"
assert len(cases) == len(lines) - 2 == lines[-1]["total"], (len(cases), len(lines))
print(len(cases))
`
	out, err := exec.Command("python3", "-c", py, xmlFile, jsonFile).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != fmt.Sprint(len(all)) {
		t.Errorf("python3 rejects the reports: %v\n%s", err, out)
	}
}

// TestOutcomesAndReports runs the mixed suite and checks every report flag
// and the exit code: the four outcomes are kept apart everywhere.
func TestOutcomesAndReports(t *testing.T) {
	mixed(t)
	dir := t.TempDir()
	files := map[string]string{}
	for _, f := range []string{"json", "junit", "markdown", "badge"} {
		files[f] = filepath.Join(dir, "sub", f)
	}
	code, stdout, stderr := run(t, "--impl", ref, "--progress", "off",
		"--json", files["json"], "--junit", files["junit"], "--markdown", files["markdown"], "--badge", files["badge"])
	if code != ExitNotConformant {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitNotConformant, stdout, stderr)
	}
	for _, want := range []string{"FAILED   exec_fails", "ERRORED  exec_errors", "1 passed"} {
		if !strings.Contains(stdout, want) && want != "1 passed" {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, "2 passed, 1 failed, 1 errored, 1 skipped") {
		t.Errorf("summary:\n%s", stdout)
	}
	_, scenarios, footer := readJSONLines(t, files["json"])
	want := map[string]string{"call_ok": "passed", "call_should": "passed", "exec_fails": "failed", "exec_errors": "errored", "exec_needs": "skipped"}
	if got := outcomes(scenarios); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	f := scenarios["exec_fails"]
	if f["line"] != 5.0 || f["reproduce"] != "apexcheck --impl '"+ref+"' --run '^exec_fails$' -v" || !strings.Contains(f["message"].(string), "text differs") {
		t.Errorf("failed scenario line %v", f)
	}
	if scenarios["exec_needs"]["message"] != "implementation does not declare no-such-capability" {
		t.Errorf("skip reason %v", scenarios["exec_needs"]["message"])
	}
	if footer["passPercent"] != 50.0 || footer["skipped"] != 1.0 {
		t.Errorf("footer %v: 2 of the 4 that ran passed; the skip counts nowhere", footer)
	}
	junit, _ := os.ReadFile(files["junit"])
	for _, want := range []string{`<testsuite name="call" tests="2" failures="0" errors="0" skipped="0"`,
		`<testsuite name="exec" tests="3" failures="1" errors="1" skipped="1"`,
		`<skipped message="implementation does not declare no-such-capability">`, `line="5"`} {
		if !strings.Contains(string(junit), want) {
			t.Errorf("JUnit lacks %q:\n%s", want, junit)
		}
	}
	md, _ := os.ReadFile(files["markdown"])
	for _, want := range []string{"| exec | 0 | 1 | 1 | 1 |", "### Failures", "<code>exec_fails</code> failed (EXEC-1)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	badge, _ := os.ReadFile(files["badge"])
	if string(badge) != `{"schemaVersion":1,"label":"apexcheck `+version.Kit+`","message":"2/5 passed, 1 failed, 1 errored, 1 skipped","color":"red"}`+"\n" {
		t.Errorf("badge %s", badge)
	}
}

// TestWithinMissFails: a call that misses the scenario's own -within bound
// fails the scenario (the bound is a behaviour the scenario checks, charged
// to its clauses), while one that misses the runner's --bound, the
// conversation's safety net, errors it.
func TestWithinMissFails(t *testing.T) {
	useSuite(t, map[string]string{
		"exec_within": "# Misses its own bound.\n# clauses: EXEC-1\n\ncall -within 1s '{\"command\":\"sleep 30\"}'\n",
		"exec_bound":  "# Misses the runner's bound.\n# clauses: EXEC-1\n\ncall '{\"command\":\"sleep 30\"}'\n",
	})
	file := filepath.Join(t.TempDir(), "report.jsonl")
	// --bound 5 s: far above the reference's start-up on a loaded machine,
	// so that the hello is never what misses it, and far below the sleep.
	code, stdout, stderr := run(t, "--impl", ref, "--progress", "off", "--bound", "5s", "--json", file)
	if code != ExitNotConformant {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitNotConformant, stdout, stderr)
	}
	_, scenarios, _ := readJSONLines(t, file)
	if got, want := outcomes(scenarios), map[string]string{"exec_within": "failed", "exec_bound": "errored"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("outcomes %v, want %v", got, want)
	}
	if m := scenarios["exec_within"]["message"].(string); !strings.Contains(m, "within 1s, the scenario's bound") || strings.Contains(m, "[errored]") {
		t.Errorf("exec_within: message %q names no scenario bound, or says errored", m)
	}
	if m := scenarios["exec_bound"]["message"].(string); !strings.Contains(m, "[errored] implementation broke the protocol: no answer to call request") {
		t.Errorf("exec_bound: message %q", m)
	}
}

func TestGitHubAnnotations(t *testing.T) {
	mixed(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	_, stdout, _ := run(t, "--impl", ref, "--progress", "off")
	for _, want := range []string{
		"::error file=testdata/scripts/exec_fails.txtar,line=5,title=apexcheck%3A exec_fails failed::at:     testdata/scripts/exec_fails.txtar:5: text 'nope\\n'%0A",
		"::error file=testdata/scripts/exec_errors.txtar,line=6,title=apexcheck%3A exec_errors errored::",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks annotation %q:\n%s", want, stdout)
		}
	}
	t.Setenv("GITHUB_ACTIONS", "")
	if _, stdout, _ := run(t, "--impl", ref, "--progress", "off"); strings.Contains(stdout, "::error") {
		t.Errorf("annotations outside GitHub Actions:\n%s", stdout)
	}
}

// writeLedger writes a ledger for the synthetic suite with the given
// entries and pins.
func writeLedger(t *testing.T, suiteDigest, kit string, entries ...verdict.Expectation) string {
	t.Helper()
	data, err := json.Marshal(verdict.Ledger{Suite: suiteDigest, Kit: kit, Expected: entries})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// writePinnedLedger writes a ledger in the current format whose entries
// are pinned to their scenarios in the synthetic suite, or to a digest of
// no scenario where pin says so.
func writePinnedLedger(t *testing.T, pin map[string]string, entries ...verdict.Expectation) string {
	t.Helper()
	digests, err := suite.ScenarioDigests(embedded.Data, ".")
	if err != nil {
		t.Fatal(err)
	}
	for i := range entries {
		entries[i].ScenarioDigest, entries[i].Kit = digests[entries[i].Scenario], "0.0.9"
		if d, ok := pin[entries[i].Scenario]; ok {
			entries[i].ScenarioDigest = d
		}
	}
	data, err := json.Marshal(verdict.Ledger{Format: verdict.LedgerFormat, Expected: entries})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestExpectLedger(t *testing.T) {
	mixed(t)
	digest, _ := suite.Digest(embedded.Data, ".")
	older := "sha256:" + strings.Repeat("0", 64)
	fails := verdict.Expectation{Scenario: "exec_fails", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "prints hi"}
	errs := verdict.Expectation{Scenario: "exec_errors", Clause: "EXEC-1", Reason: "is killed"}
	passes := verdict.Expectation{Scenario: "call_ok", Clause: "CALL-1", Reason: "was broken once"}
	tests := []struct {
		name   string
		ledger string
		code   int
		want   string
	}{
		{"exact match", writePinnedLedger(t, nil, fails, errs), ExitConformant, "the run matches the ledger"},
		{"old format, this suite", writeLedger(t, digest, "", fails, errs), ExitConformant, "is in the old ledger format (pinned to the whole suite), read as format 2"},
		{"changed scenario, still failing", writePinnedLedger(t, map[string]string{"exec_fails": older}, fails, errs), ExitNotConformant,
			"STALE    exec_fails"},
		{"changed scenario, flagged by name", writePinnedLedger(t, map[string]string{"exec_fails": older}, fails, errs), ExitNotConformant,
			"exec_fails: reviewed against an older version of the scenario (kit 0.0.9, sha256:000000000000; now sha256:"},
		{"removed scenario", writePinnedLedger(t, map[string]string{"exec_gone": older}, fails, errs,
			verdict.Expectation{Scenario: "exec_gone", Clause: "EXEC-1", Reason: "r"}), ExitNotConformant, "stale entry exec_gone: listed in the ledger"},
		{"new scenario fails", writePinnedLedger(t, nil, fails), ExitNotConformant, "ERRORED  exec_errors"},
		{"listed scenario now passes", writePinnedLedger(t, nil, fails, errs, passes), ExitNotConformant, "XPASS    call_ok"},
		{"pinned by kit", writeLedger(t, "", version.Kit, fails, errs), ExitConformant, "2 expected failures"},
		{"unexpected failure", writeLedger(t, digest, "", fails), ExitNotConformant, "ERRORED  exec_errors"},
		{"expected failure passes (ratchet)", writeLedger(t, digest, "", fails, errs, passes), ExitNotConformant, "XPASS    call_ok"},
		{"flaky entry passes", writeLedger(t, digest, "", fails, errs,
			verdict.Expectation{Scenario: "call_ok", Clause: "CALL-1", Reason: "races", Flaky: true}), ExitConformant, "(1 listed as flaky passed this time)"},
		{"failed listed as errored", writeLedger(t, digest, "", errs,
			verdict.Expectation{Scenario: "exec_fails", Outcome: suite.Errored, Clause: "EXEC-1", Reason: "r"}), ExitNotConformant, "does NOT match"},
		{"old format, other suite", writeLedger(t, older, "", fails, errs), ExitUsage,
			"is in the old format, pinned to the whole suite sha256:000000000000, but this kit (" + version.Kit + ") runs suite " + suite.ShortDigest(digest) + ": nothing tells which of its entries still hold; redraft it"},
		{"old format, other kit", writeLedger(t, "", "0.0.0-other", fails, errs), ExitUsage, "pinned to kit 0.0.0-other"},
		{"case-variant member", writeRaw(t, `{"format":2,"expected":[{"Scenario":"exec_fails","scenarioDigest":"`+older+`","kit":"1","clause":"EXEC-1","reason":"r"}]}`),
			ExitUsage, `member "Scenario": member names are case-sensitive`},
		{"clause undefined", writeLedger(t, digest, "", verdict.Expectation{Scenario: "exec_fails", Clause: "CALL-9", Reason: "r"}), ExitUsage, "the spec defines no clause CALL-9"},
		{"missing file", filepath.Join(t.TempDir(), "none.json"), ExitUsage, "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			jsonFile := filepath.Join(t.TempDir(), "r.jsonl")
			code, stdout, stderr := run(t, "--impl", ref, "--progress", "off", "--expect", tt.ledger, "--json", jsonFile)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", code, tt.code, tt.want, stdout, stderr)
			}
			if code == ExitUsage {
				return
			}
			if !strings.Contains(stdout, "a failure the ledger lists is expected and counts as a pass") {
				t.Errorf("the run does not say up front that listed failures pass:\n%s", stdout)
			}
			_, scenarios, footer := readJSONLines(t, jsonFile)
			if (footer["ledgerMatched"] == true) != (code == ExitConformant) {
				t.Errorf("footer %v", footer)
			}
			if code == ExitConformant && (scenarios["exec_fails"]["expectation"] != "expected-failure" || scenarios["exec_fails"]["reason"] != "prints hi") {
				t.Errorf("scenario line %v", scenarios["exec_fails"])
			}
		})
	}
}

// TestWriteExpect drafts a ledger from a run, then checks that the draft
// matches a second run exactly.
func TestWriteExpect(t *testing.T) {
	mixed(t)
	draft := filepath.Join(t.TempDir(), "draft.json")
	if code, stdout, stderr := run(t, "--impl", ref, "--progress", "off", "--write-expect", draft); code != ExitNotConformant || !strings.Contains(stdout, "draft ledger written") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	l, err := verdict.LoadLedger(draft)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Expected) != 2 || l.Expected[0].Scenario != "exec_errors" || l.Expected[1].Scenario != "exec_fails" || !strings.HasPrefix(l.Expected[1].Reason, "TODO: review: FAIL:") {
		t.Errorf("draft %+v", l.Expected)
	}
	// Unreviewed, the draft is refused: a TODO reason accepts a failure
	// nobody read.
	if code, stdout, stderr := run(t, "--impl", ref, "--progress", "off", "--expect", draft); code != ExitUsage ||
		!strings.Contains(stderr, "2 entries are not reviewed") || !strings.Contains(stderr, "exec_errors, exec_fails") {
		t.Errorf("an unreviewed draft: exit %d, want %d naming both entries\n%s\n%s", code, ExitUsage, stdout, stderr)
	}
	for i := range l.Expected {
		l.Expected[i].Reason = "reviewed: " + l.Expected[i].Scenario
	}
	reviewed := filepath.Join(t.TempDir(), "reviewed.json")
	if err := writeFile(reviewed, l.WriteJSON); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := run(t, "--impl", ref, "--progress", "off", "--expect", reviewed); code != ExitConformant {
		t.Errorf("the reviewed draft does not match a rerun: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// An unreviewed draft still carries over into a new draft.
	if code, _, stderr := run(t, "--impl", ref, "--progress", "off", "--expect", draft, "--write-expect", filepath.Join(t.TempDir(), "again.json")); code != ExitNotConformant ||
		!strings.Contains(stderr, "its reasons carry over into the draft") {
		t.Errorf("redraft from an unreviewed draft: exit %d\n%s", code, stderr)
	}

	// A reviewed ledger for an older suite: its reasons carry over into a
	// new draft for the current suite, and only there.
	old := writeLedger(t, "sha256:older", "", verdict.Expectation{Scenario: "exec_fails", Clause: "EXEC-1", Reason: "reviewed"})
	code, _, stderr := run(t, "--impl", ref, "--progress", "off", "--expect", old, "--write-expect", draft)
	if code != ExitNotConformant || !strings.Contains(stderr, "not checking the run against it") {
		t.Errorf("redraft: exit %d\n%s", code, stderr)
	}
	digests, _ := suite.ScenarioDigests(embedded.Data, ".")
	if l, err := verdict.LoadLedger(draft); err != nil || l.Format != verdict.LedgerFormat || l.Lookup("exec_fails").Reason != "reviewed" ||
		l.Lookup("exec_fails").ScenarioDigest != digests["exec_fails"] || l.Lookup("exec_fails").Kit != version.Kit {
		t.Errorf("redraft %+v, %v", l, err)
	}
}

// writeRaw writes a ledger file as given.
func writeRaw(t *testing.T, text string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "expected.json")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestLedgerMigrate: apexcheck ledger migrate rewrites an old ledger pinned
// to this suite in the current format, keeping every reviewed member, and
// refuses (changing nothing) one pinned to another suite.
func TestLedgerMigrate(t *testing.T) {
	mixed(t)
	digest, _ := suite.Digest(embedded.Data, ".")
	digests, _ := suite.ScenarioDigests(embedded.Data, ".")
	fails := verdict.Expectation{Scenario: "exec_fails", Outcome: suite.Failed, Clause: "EXEC-1", Reason: "prints <hi>"}
	errs := verdict.Expectation{Scenario: "exec_errors", Clause: "EXEC-1", Reason: "races", Flaky: true}
	file := writeLedger(t, digest, "0.0.7", fails, errs)
	code, stdout, stderr := run(t, "ledger", "migrate", file)
	if code != ExitConformant || !strings.Contains(stdout, "migrated to format 2, 2 entries") {
		t.Fatalf("migrate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	l, err := verdict.LoadLedger(file)
	if err != nil {
		t.Fatal(err)
	}
	want := []verdict.Expectation{fails, errs}
	want[0].ScenarioDigest, want[0].Kit = digests["exec_fails"], "0.0.7"
	want[1].ScenarioDigest, want[1].Kit = digests["exec_errors"], "0.0.7"
	if l.Format != verdict.LedgerFormat || l.Suite != "" || l.Kit != "" || !reflect.DeepEqual(l.Expected, want) {
		t.Errorf("migrated %+v, want entries %+v", l, want)
	}
	if code, stdout, _ := run(t, "ledger", "migrate", file); code != ExitConformant || !strings.Contains(stdout, "already in format 2") {
		t.Errorf("second migrate: exit %d\n%s", code, stdout)
	}
	if code, stdout, stderr := run(t, "--impl", ref, "--progress", "off", "--expect", file); code != ExitConformant || strings.Contains(stderr, "note") {
		t.Errorf("run against the migrated ledger: exit %d\n%s\n%s", code, stdout, stderr)
	}

	other := writeLedger(t, "sha256:"+strings.Repeat("0", 64), "", fails)
	before, _ := os.ReadFile(other)
	code, _, stderr = run(t, "ledger", "migrate", other)
	after, _ := os.ReadFile(other)
	if code != ExitUsage || !strings.Contains(stderr, "pinned to the whole suite sha256:000000000000") || !bytes.Equal(before, after) {
		t.Errorf("migrate of a ledger for another suite: exit %d\n%s\nfile now:\n%s", code, stderr, after)
	}
	if code, _, stderr := run(t, "ledger", "tidy", file); code != ExitUsage || !strings.Contains(stderr, "want: ledger migrate FILE...") {
		t.Errorf("ledger tidy: exit %d\n%s", code, stderr)
	}
}

func TestCertify(t *testing.T) {
	t.Run("denied", func(t *testing.T) {
		mixed(t)
		cert := filepath.Join(t.TempDir(), "cert.txt")
		code, stdout, _ := run(t, "--impl", ref, "--progress", "off", "--certify", "--certificate", cert)
		if code != ExitNotConformant || !strings.Contains(stdout, "apexcheck certificate: NOT CERTIFIED") {
			t.Fatalf("exit %d\n%s", code, stdout)
		}
		text, _ := os.ReadFile(cert)
		for _, want := range []string{"NOT CERTIFIED", "implementation  apexcheck-reference " + version.Kit,
			"exec_needs (MUST EXEC-2) skipped: implementation does not declare no-such-capability",
			"exec_fails (MUST EXEC-1) failed: FAIL:", "MUST scenarios  1 of 4 ran and passed"} {
			if !strings.Contains(string(text), want) {
				t.Errorf("certificate lacks %q:\n%s", want, text)
			}
		}
	})
	t.Run("certified", func(t *testing.T) {
		useSuite(t, map[string]string{"call_ok": passing, "call_should": should})
		cert := filepath.Join(t.TempDir(), "cert.json")
		code, stdout, _ := run(t, "--impl", ref, "--progress", "off", "--certify", "--certificate", cert)
		if code != ExitConformant || !strings.Contains(stdout, "apexcheck certificate: CERTIFIED") {
			t.Fatalf("exit %d\n%s", code, stdout)
		}
		var c verdict.Certificate
		data, _ := os.ReadFile(cert)
		if err := json.Unmarshal(data, &c); err != nil || !c.Certified || c.Implementation.Name != "apexcheck-reference" || c.Kit != version.Kit || c.Totals.Passed != 2 {
			t.Errorf("certificate %+v (%v)", c, err)
		}
	})
	t.Run("a SHOULD failure does not deny", func(t *testing.T) {
		useSuite(t, map[string]string{"call_ok": passing, "call_should": strings.Replace(should, "\"}'\n", "\"}'\ntext 'other'\n", 1)})
		code, stdout, _ := run(t, "--impl", ref, "--progress", "off", "--certify")
		if code != ExitConformant || !strings.Contains(stdout, "CERTIFIED") || !strings.Contains(stdout, "call_should (CALL-2) failed") {
			t.Errorf("exit %d\n%s", code, stdout)
		}
	})
}

func TestRunAndShard(t *testing.T) {
	mixed(t)
	selected := func(args ...string) map[string]string {
		t.Helper()
		file := filepath.Join(t.TempDir(), "r.jsonl")
		run(t, append([]string{"--impl", ref, "--progress", "off", "--json", file}, args...)...)
		_, scenarios, _ := readJSONLines(t, file)
		return outcomes(scenarios)
	}
	if got := selected("--run", "^call_"); len(got) != 2 || got["call_ok"] != "passed" || got["call_should"] != "passed" {
		t.Errorf("--run ^call_ selected %v", got)
	}
	union := map[string]string{}
	for i := 1; i <= 2; i++ {
		for n, o := range selected("--shard", fmt.Sprintf("%d/2", i)) {
			if _, dup := union[n]; dup {
				t.Errorf("%s is in both shards", n)
			}
			union[n] = o
		}
	}
	if len(union) != 5 {
		t.Errorf("the shards cover %v, want all 5 scenarios", union)
	}
	if got := selected("--area", "call"); len(got) != 2 || got["call_ok"] != "passed" {
		t.Errorf("--area call selected %v", got)
	}
	if got := selected("--area", "call", "--area", "exec", "--run", "fails|should"); len(got) != 2 || got["exec_fails"] == "" || got["call_should"] == "" {
		t.Errorf("--area call --area exec --run 'fails|should' selected %v", got)
	}
	if got := selected("--area", "exec,call"); len(got) != 5 {
		t.Errorf("--area exec,call selected %v", got)
	}
	_, list1, _ := run(t, "list", "--shard", "1/2")
	_, list2, _ := run(t, "list", "--shard", "2/2")
	if strings.Count(list1+list2, "\n") != 5+2 {
		t.Errorf("list --shard:\n%s%s", list1, list2)
	}
}

// TestStopping checks --fail-fast and --max-fail with one scenario at a
// time, so the order of events is fixed: every scenario fails, and once
// the limit is reached the rest are skipped with the reason.
func TestStopping(t *testing.T) {
	suiteOf := map[string]string{}
	for _, n := range []string{"exec_a", "exec_b", "exec_c", "exec_d"} {
		suiteOf[n] = failing
	}
	useSuite(t, suiteOf)
	tests := []struct {
		flags   []string
		failed  int
		message string
	}{
		{[]string{"--fail-fast"}, 1, "not run: stopped after 1 failures"},
		{[]string{"--max-fail", "3"}, 3, "not run: stopped after 3 failures"},
		{[]string{"--max-fail", "0"}, 4, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.flags, " "), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "r.jsonl")
			code, _, _ := run(t, append([]string{"--impl", ref, "--progress", "off", "--parallel", "1", "--json", file}, tt.flags...)...)
			_, scenarios, footer := readJSONLines(t, file)
			if code != ExitNotConformant || footer["failed"] != float64(tt.failed) || footer["skipped"] != float64(4-tt.failed) {
				t.Fatalf("exit %d, footer %v", code, footer)
			}
			for n, s := range scenarios {
				if s["outcome"] == "skipped" && s["message"] != tt.message {
					t.Errorf("%s skipped with %q, want %q", n, s["message"], tt.message)
				}
			}
		})
	}
}

func TestKeepWork(t *testing.T) {
	useSuite(t, map[string]string{"call_ok": passing, "exec_fails": failing})
	_, stdout, _ := run(t, "--impl", ref, "--progress", "off", "--keep-work")
	m := regexp.MustCompile(`work directory kept: (\S+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no work directory printed:\n%s", stdout)
	}
	dir := m[1]
	defer os.RemoveAll(filepath.Dir(dir))
	if filepath.Base(dir) != "script-exec_fails" {
		t.Errorf("kept %s, want the failing scenario's directory", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "home")); err != nil {
		t.Errorf("kept directory is not the scenario's work directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "script-call_ok")); err == nil {
		t.Errorf("the passing scenario's work directory was kept too")
	}
	_, stdout, _ = run(t, "--impl", ref, "--progress", "off")
	if strings.Contains(stdout, "work directory kept") {
		t.Errorf("work kept without --keep-work:\n%s", stdout)
	}
}

func TestProgress(t *testing.T) {
	useSuite(t, map[string]string{"call_ok": passing, "exec_fails": failing})
	_, _, stderr := run(t, "--impl", ref, "--progress", "tty", "--parallel", "1")
	if !strings.Contains(stderr, "\r\x1b[K[1/2] ") || !strings.Contains(stderr, "[2/2] passed 1 failed 1 errored 0 skipped 0\n") {
		t.Errorf("tty progress %q", stderr)
	}
	_, _, stderr = run(t, "--impl", ref, "--progress", "plain")
	if strings.Contains(stderr, "\r") || !strings.Contains(stderr, "failed  exec_fails") || strings.Count(stderr, "\n") != 2 {
		t.Errorf("plain progress %q", stderr)
	}
	_, _, stderr = run(t, "--impl", ref, "--progress", "auto")
	if strings.Contains(stderr, "\r") {
		t.Errorf("auto progress on a non-terminal is not plain: %q", stderr)
	}
	if _, _, stderr = run(t, "--impl", ref, "--progress", "off"); stderr != "" {
		t.Errorf("progress off printed %q", stderr)
	}
}

func TestVerboseAndParallel(t *testing.T) {
	mixed(t)
	_, stdout, _ := run(t, "--impl", ref, "--progress", "off", "-v", "--parallel", "3", "--bound", "20s")
	// With -v a failure shows its whole log: every command, not only the
	// FAIL line.
	for _, want := range []string{"PASSED   call_ok", "SKIPPED  exec_needs", "FAILED   exec_fails", "    > call '{\"command\":\"echo hi\"}'"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("-v output lacks %q:\n%s", want, stdout)
		}
	}
	_, stdout, _ = run(t, "--impl", ref, "--progress", "off")
	if strings.Contains(stdout, "PASSED") {
		t.Errorf("passes printed without -v:\n%s", stdout)
	}
}

// TestRelativeImpl checks that a relative path in --impl works although
// the implementation starts in each scenario's work directory.
func TestRelativeImpl(t *testing.T) {
	useSuite(t, map[string]string{"call_ok": passing})
	dir := t.TempDir()
	script := "#!/bin/sh\nexec " + os.Args[0] + " serve\n"
	if err := os.WriteFile(filepath.Join(dir, "impl.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, impl := range []string{"./impl.sh", "sh ./impl.sh"} {
		if code, stdout, stderr := run(t, "--impl", impl, "--progress", "off"); code != ExitConformant {
			t.Errorf("--impl %q: exit %d\n%s\n%s", impl, code, stdout, stderr)
		}
	}
}

// TestUsageErrors checks that every bad flag or argument exits 2 with a
// message.
func TestUsageErrors(t *testing.T) {
	mixed(t)
	tests := [][]string{
		{"--no-such-flag"},
		{"extra-argument"},
		{"--run", "("},
		{"--shard", "0/2"},
		{"--shard", "two"},
		{"--max-fail", "-1"},
		{"--max-fail", "many"},
		{"--fail-fast", "--max-fail", "3"},
		{"--parallel", "-1"},
		{"--bound", "0s"},
		{"--bound", "soon"},
		{"--progress", "loud"},
		{"--certify", "--run", "call"},
		{"--certify", "--shard", "1/2"},
		{"--certify", "--area", "exec"},
		{"--area", "nope"},
		{"--area", "exec,"},
		{"list", "--area", "EXEC"},
		{"--certificate", "c.txt"},
		{"--impl", `"unterminated`},
		{"--impl", "/no/such/implementation"},
		{"--run", "^nothing-matches$"},
		{"list", "--no-such-flag"},
		{"list", "--run", "("},
		{"list", "--shard", "3/2"},
		{"list", "extra"},
		{"explain"},
		{"explain", "CALL-1", "CALL-2"},
		{"explain", "NOPE-1"},
		{"validate", "--no-such-flag"},
		{"validate", "--impl", "/no/such/implementation"},
		{"validate", "extra"},
		{"version", "extra"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := run(t, args...)
			if code != ExitUsage || stderr == "" {
				t.Errorf("exit %d, stderr %q; want %d and a message", code, stderr, ExitUsage)
			}
		})
	}
}

// TestBadFlag checks that a mistake in the flags gets one line naming it
// and pointing to the command's help, not the whole usage.
func TestBadFlag(t *testing.T) {
	mixed(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag"}, "apexcheck: unknown flag -no-such-flag (see 'apexcheck --help')\n"},
		{[]string{"--max-fail", "many"}, "apexcheck: invalid value \"many\" for flag -max-fail: parse error (see 'apexcheck --help')\n"},
		{[]string{"list", "--nope"}, "apexcheck list: unknown flag -nope (see 'apexcheck list --help')\n"},
		{[]string{"list", "extra"}, "apexcheck list: unexpected argument \"extra\" (see 'apexcheck list --help')\n"},
		{[]string{"explain"}, "apexcheck explain: want one clause ID, such as EXEC-10, or one scenario name (see 'apexcheck explain --help')\n"},
		{[]string{"validate", "--nope"}, "apexcheck validate: unknown flag -nope (see 'apexcheck validate --help')\n"},
		{[]string{"version", "x"}, "apexcheck version: unexpected argument \"x\" (see 'apexcheck version --help')\n"},
		{[]string{"serve", "--nope"}, "apexcheck serve: unknown flag -nope (see 'apexcheck serve --help')\n"},
		{[]string{"--area", "exe"}, "apexcheck: --area exe: no such area; the suite's areas are call, exec (see 'apexcheck --help')\n"},
		{[]string{"help", "nope"}, "apexcheck help: no command \"nope\" (see 'apexcheck help --help')\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, tt.args...)
			if code != ExitUsage || stderr != tt.want || stdout != "" {
				t.Errorf("exit %d\nstderr %q\nwant   %q\nstdout %q", code, stderr, tt.want, stdout)
			}
		})
	}
}

// TestHelp checks that every command's help goes to stdout with exit 0,
// in each spelling, and never runs the command (serve --help used to
// start the server).
func TestHelp(t *testing.T) {
	mixed(t)
	for _, c := range subcommands {
		for _, flag := range []string{"-h", "--help", "-help"} {
			args := []string{flag}
			if c.name != "" {
				args = []string{c.name, flag}
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, stdout, stderr := run(t, args...)
				if code != ExitConformant || stderr != "" || !strings.HasPrefix(stdout, "usage: "+c.synopsis()) && c.name != "" {
					t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
				}
				if !strings.Contains(stdout, strings.TrimSpace(c.help)) {
					t.Errorf("help lacks the command's description:\n%s", stdout)
				}
			})
		}
		name := c.name
		if name == "" {
			name = "apexcheck"
		}
		code, stdout, _ := run(t, "help", name)
		_, direct, _ := run(t, append(strings.Fields(c.name), "--help")...)
		if code != ExitConformant || stdout != direct {
			t.Errorf("help %s: exit %d, output differs from --help:\n%s", name, code, stdout)
		}
	}
	_, stdout, _ := run(t, "--help")
	for _, c := range subcommands {
		if !regexp.MustCompile(`(?m)^(usage:| )\s+` + regexp.QuoteMeta(c.synopsis()) + `\s+` + regexp.QuoteMeta(c.summary) + `$`).MatchString(stdout) {
			t.Errorf("the overview does not list %q:\n%s", c.synopsis(), stdout)
		}
	}
	if !strings.Contains(stdout, "-impl CMD ARGS") {
		t.Errorf("the overview lacks the run's flags:\n%s", stdout)
	}
}

func TestListExplainVersion(t *testing.T) {
	mixed(t)
	code, stdout, _ := run(t, "list", "--run", "^exec_", "-v")
	if code != ExitConformant || !strings.Contains(stdout, "SCENARIO") ||
		!regexp.MustCompile(`(?m)^exec_needs  +EXEC-2  +no-such-capability  +Needs a capability nobody declares.$`).MatchString(stdout) ||
		!regexp.MustCompile(`(?m)^exec_fails  +EXEC-1  +-  +A deliberate failure.$`).MatchString(stdout) || strings.Contains(stdout, "call_ok") {
		t.Errorf("list: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = run(t, "explain", "exec-1")
	if code != ExitConformant || !strings.Contains(stdout, "EXEC-1 (MUST; derived: test) spec/t.md\nOutput is exact.") ||
		!strings.Contains(stdout, "testdata/scripts/exec_fails.txtar  A deliberate failure.") {
		t.Errorf("explain: exit %d\n%s", code, stdout)
	}
	digest, _ := suite.Digest(embedded.Data, ".")
	if code, stdout, _ = run(t, "version"); code != ExitConformant || stdout != "apexcheck "+version.Kit+" (suite "+digest+")\n" {
		t.Errorf("version: exit %d %q", code, stdout)
	}
}

func TestValidate(t *testing.T) {
	code, stdout, stderr := run(t, "validate", "--impl", ref, "-v")
	if code != ExitConformant || !regexp.MustCompile(`\d+ messages checked: 0 errors, 0 warnings`).MatchString(stdout) || !strings.Contains(stdout, "ok      call that succeeds response") {
		t.Errorf("reference: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "validate", "--impl", os.Args[0]+" misspoken")
	for _, want := range []string{
		"INVALID call that succeeds response:",
		`$.result.isError: is missing (required)`,
		`$.result.is_error: warning: unknown member (ignored by the runner); did you mean "isError"?`,
		`$.result.details.execution.exitCode: is string "0", want integer or null`,
		"skipped call with updates (needs updates)",
		// The runner cannot decode an ill-typed message, so the exchange
		// ends there; the field-level errors are the finding.
		"stopped early: validate: call that succeeds: implementation broke the protocol",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("validate output lacks %q", want)
		}
	}
	if code != ExitNotConformant {
		t.Errorf("misspoken: exit %d\n%s\n%s", code, stdout, stderr)
	}
}

// serveMisspoken is an implementation that speaks the protocol's framing
// but misspells and mistypes members: what `validate` exists to catch.
func serveMisspoken() int {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct{ ID, Type string }
		if json.Unmarshal(in.Bytes(), &req) != nil {
			continue
		}
		switch req.Type {
		case "hello":
			out.Encode(map[string]any{"id": req.ID, "type": "hello", "protocol": 1,
				"implementation": map[string]any{"name": "misspoken", "version": "0", "language": "go"}})
		case "call":
			out.Encode(map[string]any{"id": req.ID, "type": "result", "result": map[string]any{"is_error": false, "text": "x",
				"details": map[string]any{"execution": map[string]any{"cwd": "/", "exitCode": "0"}}}})
		case "shutdown":
			out.Encode(map[string]any{"id": req.ID, "type": "shutdown"})
			return 0
		default:
			out.Encode(map[string]any{"id": req.ID, "type": "error", "error": map[string]any{"code": 7}})
		}
	}
	return 0
}

// TestFailureBlock runs a scenario of the real suite against a broken
// variant (internal/broken) and checks that the terminal and every report
// show the failure a porter can act on: the scenario's path as shipped
// with the failing line and command, the clauses it proves with their
// text, the diff of what was expected and what came, and the command
// that reruns it alone with the run's flags.
func TestFailureBlock(t *testing.T) {
	impl := os.Args[0] + " broken trailing-newline-line"
	dir := t.TempDir()
	files := map[string]string{}
	for _, f := range []string{"json", "junit", "markdown"} {
		files[f] = filepath.Join(dir, f)
	}
	t.Setenv("GITHUB_ACTIONS", "true")
	code, stdout, stderr := run(t, "--impl", impl, "--run", "^output_exit_status$", "--bound", "45s", "--progress", "off",
		"--json", files["json"], "--junit", files["junit"], "--markdown", files["markdown"])
	if code != ExitNotConformant {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	rerun := "apexcheck --impl '" + impl + "' --bound 45s --run '^output_exit_status$' -v"
	block := []string{
		"at:     testdata/scripts/output_exit_status.txtar:12: cmp stdout got\nsee:    apexcheck show output_exit_status (the scenario as shipped)\n",
		"failed: stdout and got differ\n",
		"proves: OUT-10 (MUST) The output part of a finished foreground result is the tail",
		"\n        OUT-12 (MUST) The by-lines footer is `[Showing lines <start>-<end> of <totalLines>. Full output: <P>]`",
		"diff:\n    --- stdout (want)\n    +++ got (got)\n",
		"    -[Showing lines 2-2001 of 2001. Full output: ",
		"    +[Showing lines 3-2002 of 2002. Full output: ",
		"rerun:  " + rerun + "\n",
	}
	check := func(where, text string) {
		t.Helper()
		for _, want := range block {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", where, want, text)
			}
		}
		if strings.Contains(text, "apexcheck-scenarios-") {
			t.Errorf("%s names the temporary copy of the scenario:\n%s", where, text)
		}
	}
	term, annotations, _ := strings.Cut(stdout, "::error ")
	check("the terminal", strings.ReplaceAll(term, "\n    ", "\n"))
	unescape := strings.NewReplacer("%0A", "\n", "%25", "%")
	check("the annotation", unescape.Replace(annotations))

	_, scenarios, _ := readJSONLines(t, files["json"])
	data, _ := json.Marshal(scenarios["output_exit_status"]["failure"])
	var f verdict.Failure
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("JSON failure %s: %v", data, err)
	}
	check("the JSON failure's text", f.Text())
	if f.Location != "testdata/scripts/output_exit_status.txtar:12" || f.Rerun != rerun || len(f.Clauses) != 5 || f.Clauses[0].Text == "" {
		t.Errorf("JSON failure %+v", f)
	}
	if msg := scenarios["output_exit_status"]["message"]; msg != "FAIL: testdata/scripts/output_exit_status.txtar:12: stdout and got differ" {
		t.Errorf("JSON message %q", msg)
	}
	junit, _ := os.ReadFile(files["junit"])
	var doc struct {
		Cases []struct {
			Failure struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(junit, &doc); err != nil || len(doc.Cases) != 1 {
		t.Fatalf("JUnit %v:\n%s", err, junit)
	}
	if doc.Cases[0].Failure.Message != "testdata/scripts/output_exit_status.txtar:12: stdout and got differ" {
		t.Errorf("JUnit failure message %q", doc.Cases[0].Failure.Message)
	}
	check("the JUnit failure", doc.Cases[0].Failure.Text)
	md, _ := os.ReadFile(files["markdown"])
	check("the Markdown summary", string(md))
}

// TestSkipsByReason checks that the summary groups skips by reason.
func TestSkipsByReason(t *testing.T) {
	needsOther := strings.Replace(needsCap, "no-such-capability", "other-capability", 1)
	useSuite(t, map[string]string{"call_ok": passing, "exec_a": needsCap, "exec_b": needsCap, "exec_c": needsOther,
		"exec_d": "# Skips itself.\n# clauses: EXEC-1\n\nskip 'zsh is not installed'\n"})
	_, stdout, _ := run(t, "--impl", ref, "--progress", "off")
	want := "\nskipped, by reason:\n" +
		"    2  missing capability no-such-capability (exec_a, exec_b)\n" +
		"    1  missing capability other-capability (exec_c)\n" +
		"    1  zsh is not installed (exec_d)\n"
	if !strings.Contains(stdout, want) {
		t.Errorf("summary lacks\n%s\nin\n%s", want, stdout)
	}
}

// TestVerbosePipedOnce checks that with -v and plain progress (the usual
// CI log, stdout and stderr in one pipe) each outcome is printed once.
func TestVerbosePipedOnce(t *testing.T) {
	mixed(t)
	var out bytes.Buffer
	code := Main([]string{"--impl", ref, "--progress", "plain", "-v"}, &out, &out)
	if code != ExitNotConformant {
		t.Fatalf("exit %d\n%s", code, out.String())
	}
	for _, name := range []string{"call_ok", "call_should", "exec_fails", "exec_errors", "exec_needs"} {
		if n := regexp.MustCompile(`(?m)^\S.* `+name+` \(`).FindAllString(out.String(), -1); len(n) != 1 {
			t.Errorf("%s: %d outcome lines, want 1:\n%s", name, len(n), out.String())
		}
	}
}
