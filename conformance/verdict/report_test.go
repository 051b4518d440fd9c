package verdict

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
)

func scen(name string, clauses ...string) suite.Scenario {
	area, _, _ := strings.Cut(name, "_")
	return suite.Scenario{Name: name, Path: name + ".txtar", Summary: "summary of " + name, Clauses: clauses, Area: area}
}

// sample is a run with every outcome, including output that XML cannot
// carry and text that Markdown and annotations must escape.
func sample() *Report {
	return &Report{
		Kit: "9.9.9", Suite: "sha256:0123456789abcdef0123",
		Implementation: protocol.Implementation{Name: "impl", Version: "1.2", Language: "go"},
		Capabilities:   []string{"abort", "updates"},
		Command:        "/opt/my impl --serve",
		Started:        time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Duration:       1500 * time.Millisecond,
		Clauses:        []suite.Clause{{ID: "CALL-2", Level: "MUST", Text: "A call returns\nits text. Details follow."}},
		Scripts:        fstest.MapFS{"call_b.txtar": {Data: []byte("# b\n# clauses: CALL-2\n\n\n\ncall '{}'\ntext 'a'\n")}},
		Results: []suite.Result{
			{Scenario: scen("call_a", "CALL-1"), Outcome: suite.Passed, Duration: 100 * time.Millisecond},
			{Scenario: scen("call_b", "CALL-2"), Outcome: suite.Failed, Duration: 200 * time.Millisecond,
				Message: "FAIL: /tmp/x/call_b.txtar:7: text differs (-want +got):\n@@ -1,1 +1,1 @@\n-a\n+\"a\\x1b[0m, b: 100%\"",
				Log:     "> call\n\x1b[31mred\x00\n"},
			{Scenario: scen("exec_c", "EXEC-1", "EXEC-2"), Outcome: suite.Errored, Duration: time.Second,
				Message: "FAIL: /tmp/x/exec_c.txtar:3: [errored] implementation closed stdout"},
			{Scenario: scen("exec_d", "EXEC-3"), Outcome: suite.Skipped, Message: "implementation does not declare process-tree"},
		},
	}
}

func TestFailingLine(t *testing.T) {
	tests := []struct {
		msg  string
		name string
		want int
	}{
		{"FAIL: /tmp/apexcheck-scenarios-1/exec_x.txtar:12: text differs", "exec_x", 12},
		{"FAIL: exec_x.txtar:3: oops", "exec_x", 3},
		{"FAIL: /tmp/d/other.txtar:3: oops", "exec_x", 0},
		{"[errored] runner panic", "exec_x", 0},
		{"", "exec_x", 0},
	}
	for _, tt := range tests {
		if got := FailingLine(suite.Result{Scenario: suite.Scenario{Name: tt.name}, Message: tt.msg}); got != tt.want {
			t.Errorf("FailingLine(%q) = %d, want %d", tt.msg, got, tt.want)
		}
	}
}

func TestCleanMessage(t *testing.T) {
	tests := []struct{ in, want string }{
		{"FAIL: /tmp/apexcheck-scenarios-123/exec_x.txtar:5: text differs", "FAIL: exec_x.txtar:5: text differs"},
		{"a\nFAIL: /d/e/call_y.txtar:12: x\nb", "a\nFAIL: call_y.txtar:12: x\nb"},
		{"FAIL: exec_x.txtar:5: already short", "FAIL: exec_x.txtar:5: already short"},
		{"no failure line", "no failure line"},
	}
	for _, tt := range tests {
		if got := CleanMessage(tt.in); got != tt.want {
			t.Errorf("CleanMessage(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLogTail(t *testing.T) {
	log := strings.Repeat("0123456789\n", 100) // 1100 bytes
	if got := LogTail(log, 2000); got != log {
		t.Errorf("a short log was cut")
	}
	got := LogTail(log, 105)
	want := "[… 1001 bytes of the log left out …]\n" + strings.Repeat("0123456789\n", 9)
	if got != want {
		t.Errorf("LogTail = %q, want %q", got, want)
	}
}

func TestReproduce(t *testing.T) {
	tests := []struct {
		command, name, want string
	}{
		{"", "exec_x", `apexcheck --run '^exec_x$' -v`},
		{"node /a/adapter.mjs", "exec_x", `apexcheck --impl 'node /a/adapter.mjs' --run '^exec_x$' -v`},
		{"/usr/bin/impl", "call_y", `apexcheck --impl /usr/bin/impl --run '^call_y$' -v`},
		{"sh -c 'it'\"s\"", "call_y", `apexcheck --impl 'sh -c '\''it'\''"s"' --run '^call_y$' -v`},
		{"--mcp 'node s.js' --mcp-mapping codex", "exec_x", `apexcheck --mcp 'node s.js' --mcp-mapping codex --run '^exec_x$' -v`},
	}
	for _, tt := range tests {
		rep := &Report{Command: tt.command}
		if got := rep.Reproduce(suite.Scenario{Name: tt.name}); got != tt.want {
			t.Errorf("Reproduce(%q, %q) =\n %s\nwant\n %s", tt.command, tt.name, got, tt.want)
		}
	}
}

func TestJSONLines(t *testing.T) {
	rep := sample()
	var buf bytes.Buffer
	if err := rep.WriteJSONLines(&buf); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != len(rep.Results)+2 {
		t.Fatalf("%d lines, want %d", len(lines), len(rep.Results)+2)
	}
	h, f := lines[0], lines[len(lines)-1]
	if h["type"] != "header" || h["kit"] != "9.9.9" || h["suite"] != rep.Suite || h["implementation"].(map[string]any)["name"] != "impl" {
		t.Errorf("header %v", h)
	}
	b := lines[2]
	if b["outcome"] != "failed" || b["line"] != 7.0 || b["reproduce"] != `apexcheck --impl '/opt/my impl --serve' --run '^call_b$' -v` ||
		!strings.Contains(b["message"].(string), "text differs") || b["durationMs"] != 200.0 || b["file"] != "testdata/scripts/call_b.txtar" {
		t.Errorf("failed scenario line %v", b)
	}
	if lines[4]["outcome"] != "skipped" || lines[4]["message"] != "implementation does not declare process-tree" {
		t.Errorf("skipped scenario line %v", lines[4])
	}
	if f["type"] != "footer" || f["passed"] != 1.0 || f["failed"] != 1.0 || f["errored"] != 1.0 || f["skipped"] != 1.0 || f["total"] != 4.0 || f["passPercent"] != 33.0 {
		t.Errorf("footer %v", f)
	}
	if _, ok := f["ledgerMatched"]; ok {
		t.Errorf("footer has ledger members without a ledger: %v", f)
	}
}

func TestJUnit(t *testing.T) {
	rep := sample()
	var buf bytes.Buffer
	if err := rep.WriteJUnit(&buf); err != nil {
		t.Fatal(err)
	}
	var doc junitSuites
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit output does not parse: %v\n%s", err, buf.String())
	}
	if doc.Tests != 4 || doc.Failures != 1 || doc.Errors != 1 || doc.Skipped != 1 || len(doc.Suites) != 2 {
		t.Fatalf("totals %+v", doc)
	}
	call, exec := doc.Suites[0], doc.Suites[1]
	if call.Name != "call" || exec.Name != "exec" || call.Tests != 2 || call.Failures != 1 || exec.Errors != 1 || exec.Skipped != 1 {
		t.Errorf("suites %+v %+v", call, exec)
	}
	b := call.Cases[1]
	if b.Failure == nil || b.Line != 7 || b.File != "testdata/scripts/call_b.txtar" ||
		b.Failure.Message != "testdata/scripts/call_b.txtar:7: text differs (-want +got):" ||
		!strings.Contains(b.Failure.Text, "proves: CALL-2 (MUST) A call returns its text.\n") ||
		!strings.Contains(b.Failure.Text, "rerun:  apexcheck --impl '/opt/my impl --serve' --run '^call_b$' -v") {
		t.Errorf("failed case %+v", b)
	}
	if !strings.Contains(b.SystemOut, "\uFFFD") || strings.ContainsRune(b.SystemOut, 0) {
		t.Errorf("control characters not replaced: %q", b.SystemOut)
	}
	if exec.Cases[0].Error == nil || exec.Cases[1].Skipped == nil || exec.Cases[1].Skipped.Message != "implementation does not declare process-tree" {
		t.Errorf("exec cases %+v", exec.Cases)
	}
}

func TestMarkdown(t *testing.T) {
	rep := sample()
	var buf bytes.Buffer
	if err := rep.WriteMarkdown(&buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"## apexcheck 9.9.9: impl 1.2",
		"**1 passed, 1 failed, 1 errored, 1 skipped** of 4 scenarios (33% of the 3 that ran passed; skips are not passes)",
		"| call | 1 | 1 | 0 | 0 |",
		"| exec | 0 | 0 | 1 | 1 |",
		"| **total** | **1** | **1** | **1** | **1** |",
		"### Failures",
		"<code>call_b</code> failed (CALL-2)",
		"Reproduce: `apexcheck --impl '/opt/my impl --serve' --run '^exec_c$' -v`",
		"<details><summary>1 skipped</summary>",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestAnnotations(t *testing.T) {
	rep := sample()
	var buf bytes.Buffer
	if err := rep.WriteAnnotations(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("want one annotation per failed or errored scenario, got:\n%s", buf.String())
	}
	want := "::error file=testdata/scripts/call_b.txtar,line=7,title=apexcheck%3A call_b failed::" +
		"at:     testdata/scripts/call_b.txtar:7: text 'a'%0Asee:    apexcheck show call_b (the scenario as shipped)%0Afailed: text differs (-want +got):%0A" +
		"proves: CALL-2 (MUST) A call returns its text.%0Adiff:%0A    @@ -1,1 +1,1 @@%0A    -a%0A    +\"a\\x1b[0m, b: 100%25\"%0A" +
		"rerun:  apexcheck --impl '/opt/my impl --serve' --run '^call_b$' -v"
	if lines[0] != want {
		t.Errorf("annotation\n %q\nwant\n %q", lines[0], want)
	}
	if !strings.HasPrefix(lines[1], "::error file=testdata/scripts/exec_c.txtar,line=3,title=apexcheck%3A exec_c errored::") {
		t.Errorf("annotation %q", lines[1])
	}
}

func TestBadge(t *testing.T) {
	ledger := &Ledger{Suite: "x", Expected: []Expectation{{Scenario: "call_b", Clause: "CALL-2", Reason: "r"}, {Scenario: "exec_c", Clause: "EXEC-1", Reason: "r"}}}
	tests := []struct {
		name   string
		outs   []suite.Outcome
		ledger *Ledger
		msg    string
		color  string
	}{
		{"all passed", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, suite.Passed}, nil, "4/4 passed", "brightgreen"},
		{"skips are not passes", []suite.Outcome{suite.Passed, suite.Passed, suite.Passed, suite.Skipped}, nil, "3/4 passed, 1 skipped", "yellowgreen"},
		{"failures", []suite.Outcome{suite.Passed, suite.Failed, suite.Errored, suite.Skipped}, nil, "1/4 passed, 1 failed, 1 errored, 1 skipped", "red"},
		{"expected failures", []suite.Outcome{suite.Passed, suite.Failed, suite.Errored, suite.Skipped}, ledger, "1/4 passed, 1 failed, 1 errored, 1 skipped", "orange"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := sample()
			rep.Ledger = tt.ledger
			for i := range rep.Results {
				rep.Results[i].Outcome = tt.outs[i]
			}
			var buf bytes.Buffer
			if err := rep.WriteBadge(&buf); err != nil {
				t.Fatal(err)
			}
			var b Badge
			if err := json.Unmarshal(buf.Bytes(), &b); err != nil {
				t.Fatal(err)
			}
			if b.SchemaVersion != 1 || b.Label != "apexcheck 9.9.9" || b.Message != tt.msg || b.Color != tt.color {
				t.Errorf("badge %+v, want message %q color %q", b, tt.msg, tt.color)
			}
		})
	}
}
