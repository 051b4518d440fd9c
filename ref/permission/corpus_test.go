package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

// The corpus lives in testdata/permissions at the repository root; its
// README says how each entry maps onto a permission request.
var corpusDir = filepath.Join("..", "..", "testdata", "permissions")

type commandEntry struct {
	Command  string   `json:"command"`
	Want     string   `json:"want"` // "segments" or "unknown"
	Segments []string `json:"segments"`
	Class    string   `json:"class"`
	Reason   string   `json:"reason"`
}

type ruleEntry struct {
	Rule    string `json:"rule"`
	Segment string `json:"segment"`
	Match   bool   `json:"match"`
	Reason  string `json:"reason"`
}

type engineEntry struct {
	Rules     []protocol.Rule `json:"rules"`
	Arguments json.RawMessage `json:"arguments"`
	Decision  string          `json:"decision"`
	Winner    *int            `json:"winner"`
	Reason    string          `json:"reason"`
}

func load[T any](t testing.TB, name string) []T {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(corpusDir, name))
	if err != nil {
		t.Fatalf("read corpus: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var out []T
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decode %s: %v", name, err)
	}
	return out
}

// runArgs builds the raw arguments of a run call, exactly as the wire
// scenarios send them.
func runArgs(command string) json.RawMessage {
	b, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		panic(err) // a string always marshals
	}
	return b
}

// commandFailures runs commands.json against g through the permission
// answer, the way a wire scenario sees it: no rules, {"command": …}.
func commandFailures(g grammar, entries []commandEntry) []string {
	var fails []string
	for i, e := range entries {
		a := g.answer(nil, call.Parse(runArgs(e.Command)))
		wantUnknown := e.Want == "unknown"
		switch {
		case a.Unknown != wantUnknown:
			fails = append(fails, fmt.Sprintf("commands[%d] %q: unknown = %v, want %v", i, e.Command, a.Unknown, wantUnknown))
		case wantUnknown && a.Segments != nil:
			fails = append(fails, fmt.Sprintf("commands[%d] %q: segments = %q, want null", i, e.Command, a.Segments))
		case !wantUnknown && !slices.Equal(a.Segments, e.Segments):
			fails = append(fails, fmt.Sprintf("commands[%d] %q: segments = %q, want %q", i, e.Command, a.Segments, e.Segments))
		case a.Decision != Ask:
			fails = append(fails, fmt.Sprintf("commands[%d] %q: decision with no rules = %q, want ask", i, e.Command, a.Decision))
		}
	}
	return fails
}

// ruleFailures runs rules.json against g: the segment is sent as the
// command, once under an allow rule and once under a deny rule with that
// content. A match decides allow (deny); no match falls back to ask.
func ruleFailures(g grammar, entries []ruleEntry) []string {
	var fails []string
	for i, e := range entries {
		p := call.Parse(runArgs(e.Segment))
		content := e.Rule
		for _, behavior := range []string{Allow, Deny} {
			rules := []protocol.Rule{{Source: "session", Behavior: behavior, Content: &content}}
			a := g.answer(rules, p)
			want := Ask
			if e.Match {
				want = behavior
			}
			if a.Decision != want {
				fails = append(fails, fmt.Sprintf("rules[%d] %s rule %q, segment %q: decision %q, want %q", i, behavior, e.Rule, e.Segment, a.Decision, want))
			}
		}
	}
	return fails
}

// engineFailures runs engine.json against g.
func engineFailures(g grammar, entries []engineEntry) []string {
	var fails []string
	for i, e := range entries {
		a := g.answer(e.Rules, call.Parse(e.Arguments))
		var want *protocol.Rule
		if e.Winner != nil {
			want = &e.Rules[*e.Winner]
		}
		if a.Decision != e.Decision || !protocol.SameRule(a.Rule, want) {
			fails = append(fails, fmt.Sprintf("engine[%d] %s: decision %q rule %s, want %q rule %s", i, e.Arguments, a.Decision, ruleString(a.Rule), e.Decision, ruleString(want)))
		}
	}
	return fails
}

func ruleString(r *protocol.Rule) string {
	if r == nil {
		return "null"
	}
	if r.Content == nil {
		return fmt.Sprintf("{%s %s tool-wide}", r.Source, r.Behavior)
	}
	return fmt.Sprintf("{%s %s %q}", r.Source, r.Behavior, *r.Content)
}

func report(t *testing.T, fails []string) {
	t.Helper()
	for _, f := range fails {
		t.Error(f)
	}
}

func TestCommandsCorpus(t *testing.T) {
	report(t, commandFailures(ref, load[commandEntry](t, "commands.json")))
}

func TestRulesCorpus(t *testing.T) {
	report(t, ruleFailures(ref, load[ruleEntry](t, "rules.json")))
}

func TestEngineCorpus(t *testing.T) {
	report(t, engineFailures(ref, load[engineEntry](t, "engine.json")))
}

// unknownClasses are the classes of PERM-17 to PERM-31, PERM-44 to PERM-46,
// PERM-48 and PERM-49 the corpus must cover, one per condition.
var unknownClasses = []string{
	ReasonEmpty, ReasonControl, ReasonFormat, ReasonSpace, ReasonContinuation,
	ReasonParse, ReasonRedirection, ReasonComment, ReasonNegation, ReasonTime,
	ReasonCoproc, ReasonCompound, ReasonFunction, ReasonReserved, ReasonAssignment,
	ReasonDeclaration, ReasonCommandWord, ReasonExpansion, ReasonGlob, ReasonTilde,
	ReasonEvaluation, ReasonLookup, ReasonRunsText, ReasonWrapper, ReasonWrites,
}

// TestCommandsCorpusShape checks the corpus itself: its size, that each
// unknown entry is unknown for the reason its class names (so an entry
// cannot pass by accident), and that every class is covered. Invalid UTF-8
// cannot be written in JSON; TestClassifyEncoding covers it.
func TestCommandsCorpusShape(t *testing.T) {
	entries := load[commandEntry](t, "commands.json")
	if len(entries) < 150 {
		t.Errorf("commands.json has %d entries, want at least 150", len(entries))
	}
	seen := map[string]bool{}
	commands := map[string]bool{}
	for i, e := range entries {
		if e.Reason == "" || e.Class == "" {
			t.Errorf("commands[%d] %q: missing reason or class", i, e.Command)
		}
		if commands[e.Command] {
			t.Errorf("commands[%d] %q: duplicate command", i, e.Command)
		}
		commands[e.Command] = true
		switch e.Want {
		case "segments":
			if len(e.Segments) == 0 {
				t.Errorf("commands[%d] %q: want segments but lists none", i, e.Command)
			}
		case "unknown":
			if e.Segments != nil {
				t.Errorf("commands[%d] %q: unknown entry lists segments", i, e.Command)
			}
			seen[e.Class] = true
			c := Classify(e.Command)
			if got, _, _ := strings.Cut(c.Reason, ":"); got != e.Class {
				t.Errorf("commands[%d] %q: unknown as %q, corpus says %q", i, e.Command, c.Reason, e.Class)
			}
		default:
			t.Errorf("commands[%d] %q: want %q", i, e.Command, e.Want)
		}
	}
	for _, c := range unknownClasses {
		if !seen[c] {
			t.Errorf("no unknown entry of class %q", c)
		}
	}
}

// TestRulesCorpusShape checks that every segment in rules.json is a command
// that classifies as exactly itself, so that sending it as a command tests
// the matcher and nothing else.
func TestRulesCorpusShape(t *testing.T) {
	entries := load[ruleEntry](t, "rules.json")
	if len(entries) < 80 {
		t.Errorf("rules.json has %d entries, want at least 80", len(entries))
	}
	matches := 0
	for i, e := range entries {
		if e.Reason == "" {
			t.Errorf("rules[%d]: missing reason", i)
		}
		if c := Classify(e.Segment); c.Unknown || len(c.Segments) != 1 || c.Segments[0] != e.Segment {
			t.Errorf("rules[%d] segment %q classifies as %+v, want exactly itself", i, e.Segment, c)
		}
		if e.Match {
			matches++
		}
	}
	if matches == 0 || matches == len(entries) {
		t.Errorf("rules.json has %d matching entries of %d; both outcomes must appear", matches, len(entries))
	}
}

func TestEngineCorpusShape(t *testing.T) {
	entries := load[engineEntry](t, "engine.json")
	for i, e := range entries {
		if e.Reason == "" {
			t.Errorf("engine[%d]: missing reason", i)
		}
		if e.Winner != nil && (*e.Winner < 0 || *e.Winner >= len(e.Rules)) {
			t.Errorf("engine[%d]: winner %d out of range", i, *e.Winner)
		}
		if e.Winner != nil && e.Rules[*e.Winner].Behavior != e.Decision {
			t.Errorf("engine[%d]: decision %q is not the winner's behaviour", i, e.Decision)
		}
	}
}
