package apexcheck_test

import (
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/rogpeppe/go-internal/txtar"
)

// coreCapabilities are the only capabilities a core scenario may require:
// any other would make an optional feature of apex's a condition of core
// certification.
var coreCapabilities = map[string]bool{"abort": true}

// coreFields are the response fields a core scenario may assert: the
// protocol's own members, the error flag and the exit status. Everything
// else a result carries (its exact text, apex's truncation facts, argv)
// is apex's.
var coreFields = []string{"type", "id", "error.code", "protocol", "implementation.", "capabilities",
	"result.isError", "result.details.execution.exitCode"}

// wordingCommands assert apex's exact texts or features beyond core; a
// core scenario uses none of them.
var wordingCommands = map[string]bool{"text": true, "cmp": true, "cmpenv": true, "render": true, "permission": true,
	"permcorpus": true, "fullfile": true, "updates": true, "fakeshell": true, "tty": true, "capture": true, "poll": true}

// TestCoreProfile checks the core profile against the spec: every core
// MUST clause has a core scenario; a core scenario cites only core
// clauses, requires no capability beyond coreCapabilities, and asserts no
// wording.
func TestCoreProfile(t *testing.T) {
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	scenarios, err := suite.LoadScenarios(apexcheck.Scripts, ".")
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]suite.Clause{}
	for _, c := range clauses {
		byID[c.ID] = c
	}
	proven := map[string]bool{}
	core := suite.Core.Scenarios(scenarios)
	if len(core) == 0 {
		t.Fatal("no core scenario")
	}
	for _, s := range core {
		for _, id := range s.Clauses {
			proven[id] = true
			if c, ok := byID[id]; ok && !c.Core {
				t.Errorf("%s is a core scenario but cites %s, which is not a core clause", s.Path, id)
			}
		}
		for _, r := range s.Requires {
			if !coreCapabilities[r] {
				t.Errorf("%s is a core scenario but requires %s", s.Path, r)
			}
		}
		data, err := fs.ReadFile(apexcheck.Scripts, s.Path)
		if err != nil {
			t.Fatal(err)
		}
		checkPortable(t, s.Path, data)
	}
	var missing []string
	for _, c := range suite.Core.Clauses(clauses) {
		if c.Level == "MAY" {
			t.Errorf("%s is a core clause at level MAY: core requires something", c.ID)
		}
		if c.Level == "MUST" && !proven[c.ID] && !strings.Contains(c.Provenance, "untestable") {
			missing = append(missing, c.ID+" ("+c.File+")")
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("core MUST clauses without a core scenario:\n  %s", strings.Join(missing, "\n  "))
	}
}

// checkPortable fails a core scenario's commands that assert wording.
func checkPortable(t *testing.T, name string, data []byte) {
	t.Helper()
	for i, line := range strings.Split(string(txtar.Parse(data).Comment), "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "!"))
		if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		switch cmd := fields[0]; {
		case wordingCommands[cmd]:
			t.Errorf("%s:%d: a core scenario uses %s, which asserts apex's wording or features", name, i+1, cmd)
		case cmd == "field" && len(fields) > 1 && !coreField(fields[1]):
			t.Errorf("%s:%d: a core scenario asserts field %s, which is apex's", name, i+1, fields[1])
		}
	}
}

func coreField(path string) bool {
	for _, f := range coreFields {
		if path == f || (strings.HasSuffix(f, ".") && strings.HasPrefix(path, f)) {
			return true
		}
	}
	return false
}

// TestCoreTableInReadme keeps the table of core clauses in spec/README.md
// (section Profiles) equal to the clauses the spec marks core.
func TestCoreTableInReadme(t *testing.T) {
	data, err := fs.ReadFile(apexcheck.Spec, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Profiles\n")
	if !ok {
		t.Fatal("spec/README.md has no section Profiles")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	listed := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| clause ") {
			continue
		}
		cell := strings.TrimSpace(strings.Split(line, "|")[1])
		for _, part := range strings.Split(cell, ",") {
			from, to, isRange := strings.Cut(strings.TrimSpace(part), " to ")
			if !isRange {
				listed[from] = true
				continue
			}
			area, a, _ := strings.Cut(from, "-")
			_, b, _ := strings.Cut(to, "-")
			var lo, hi int
			fmt.Sscan(a, &lo)
			fmt.Sscan(b, &hi)
			for n := lo; n <= hi; n++ {
				listed[fmt.Sprintf("%s-%d", area, n)] = true
			}
		}
	}
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clauses {
		if c.Core != listed[c.ID] {
			t.Errorf("%s: core in the spec %v, listed in spec/README.md's table of core clauses %v", c.ID, c.Core, listed[c.ID])
		}
		delete(listed, c.ID)
	}
	for id := range listed {
		t.Errorf("spec/README.md lists %s as core, but the spec defines no such clause", id)
	}
}
