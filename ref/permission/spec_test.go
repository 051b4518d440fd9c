package permission

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

func parsed(t *testing.T, raw string) call.Parsed {
	t.Helper()
	return call.Parse([]byte(raw))
}

func strp(s string) *string { return &s }

// TestToolFunctions checks each permission function of the tool against
// each kind of call (PERM-1 to PERM-9).
func TestToolFunctions(t *testing.T) {
	tests := []struct {
		name, args  string
		defaultFor  string
		unknown     bool
		rule        string // a rule to try with Matches and MatchesDeny
		allow, deny bool
		preview     []string
		ruleForCall *string
	}{
		{"run one segment", `{"command":"git  status"}`, "", false, "git status", true, true,
			[]string{"git  status"}, strp("git status")},
		{"run sensitive segment", `{"command":"echo  'a'"}`, "", false, "echo 'a'", false, false,
			[]string{"echo  'a'"}, strp("echo  'a'")},
		{"run chain, rule on one segment", `{"command":"ls && rm -rf build"}`, "", false, "rm:*", false, true,
			[]string{"ls && rm -rf build"}, nil},
		{"run chain, rule on all", `{"command":"ls -a; ls -b"}`, "", false, "ls:*", true, true,
			[]string{"ls -a; ls -b"}, nil},
		{"run unknown", `{"command":"ls > out"}`, "", true, "ls:*", false, false,
			[]string{"ls > out"}, nil},
		{"run multi-line preview", `{"command":"ls\npwd"}`, "", false, "pwd", false, true,
			[]string{"ls\npwd"}, nil},
		{"run background", `{"command":"sleep 1","background":true}`, "", false, "sleep:*", true, true,
			[]string{"sleep 1"}, strp("sleep 1")},
		{"retrieve", `{"handle":"bg-7"}`, "allow", false, BackgroundHandleRule, true, true,
			[]string{"Retrieve output from background shell command bg-7"}, strp(BackgroundHandleRule)},
		{"retrieve, other rule", `{"handle":"bg-7"}`, "allow", false, "bg-7", false, false,
			[]string{"Retrieve output from background shell command bg-7"}, strp(BackgroundHandleRule)},
		{"retrieve, padded reserved rule", `{"handle":"bg-7"}`, "allow", false, " background-handle", false, false,
			[]string{"Retrieve output from background shell command bg-7"}, strp(BackgroundHandleRule)},
		{"kill", `{"handle":"bg-7","kill":true}`, "allow", false, BackgroundHandleRule, true, true,
			[]string{"Kill background shell command bg-7"}, strp(BackgroundHandleRule)},
		{"rejected", `{"command":"ls","handle":"h"}`, "", true, "ls", false, false,
			[]string{call.ReasonAmbiguous}, nil},
		{"rejected, reserved rule", `{"handle":"h","timeout":1}`, "", true, BackgroundHandleRule, false, false,
			[]string{call.StrayFieldsPrefix + "timeout."}, nil},
		{"not an object", `"ls"`, "", true, "ls", false, false, []string{call.ReasonNotObject}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parsed(t, tt.args)
			if got := DefaultBehaviorFor(p); got != tt.defaultFor {
				t.Errorf("DefaultBehaviorFor = %q, want %q", got, tt.defaultFor)
			}
			if got := IsUnknown(p); got != tt.unknown {
				t.Errorf("IsUnknown = %v, want %v", got, tt.unknown)
			}
			if got := Matches(tt.rule, p); got != tt.allow {
				t.Errorf("Matches(%q) = %v, want %v", tt.rule, got, tt.allow)
			}
			if got := MatchesDeny(tt.rule, p); got != tt.deny {
				t.Errorf("MatchesDeny(%q) = %v, want %v", tt.rule, got, tt.deny)
			}
			if got := Preview(p); !slices.Equal(got, tt.preview) {
				t.Errorf("Preview = %q, want %q", got, tt.preview)
			}
			got := RuleForCall(p)
			if (got == nil) != (tt.ruleForCall == nil) || (got != nil && *got != *tt.ruleForCall) {
				t.Errorf("RuleForCall = %v, want %v", deref(got), deref(tt.ruleForCall))
			}
		})
	}
	if DefaultBehavior() != Ask {
		t.Errorf("DefaultBehavior = %q, want ask", DefaultBehavior())
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestDescribe(t *testing.T) {
	tests := map[string]string{
		BackgroundHandleRule: "Retrieve or kill background shell commands",
		"git commit:*":       `Run bash commands matching "git commit:*"`,
		`echo "x"`:           `Run bash commands matching "echo "x""`, // no escaping, as the seed
		"":                   `Run bash commands matching ""`,
		" background-handle": `Run bash commands matching " background-handle"`,
	}
	for rule, want := range tests {
		if got := Describe(rule); got != want {
			t.Errorf("Describe(%q) = %q, want %q", rule, got, want)
		}
	}
}

// TestRuleForCallRoundTrip: the rule "always allow this" persists must
// authorise the very call it came from (PERM-8).
func TestRuleForCallRoundTrip(t *testing.T) {
	for _, e := range load[commandEntry](t, "commands.json") {
		p := call.Parse(runArgs(e.Command))
		r := RuleForCall(p)
		if r == nil {
			continue
		}
		if !Matches(*r, p) {
			t.Errorf("%q: RuleForCall %q does not match the call", e.Command, *r)
		}
		rules := []protocol.Rule{{Source: "session", Behavior: Allow, Content: r}}
		if d, _ := Decide(rules, p); d != Allow {
			t.Errorf("%q: the persisted rule %q decides %s", e.Command, *r, d)
		}
	}
}

// TestAnswerFields checks the fields of the permission answer that the
// corpora do not pin down (PERM-43).
func TestAnswerFields(t *testing.T) {
	allowLs := protocol.Rule{Source: "session", Behavior: Allow, Content: strp("ls:*")}
	toolWide := protocol.Rule{Source: "session", Behavior: Deny} // loses to the specific rule
	rules := []protocol.Rule{allowLs, toolWide}

	a := Answer(rules, parsed(t, `{"command":"ls -la"}`))
	if a.Decision != Allow || !protocol.SameRule(a.Rule, &allowLs) {
		t.Errorf("decision %q rule %s", a.Decision, ruleString(a.Rule))
	}
	if want := []string{`Run bash commands matching "ls:*"`, ""}; !slices.Equal(a.Descriptions, want) {
		t.Errorf("descriptions %q, want %q", a.Descriptions, want)
	}
	if a.DefaultBehavior != Ask || a.Unknown || !slices.Equal(a.Segments, []string{"ls -la"}) {
		t.Errorf("run answer: %+v", a)
	}

	// The winner is a copy: changing it leaves the caller's rules alone.
	a.Rule.Source = "changed"
	if rules[0].Source != "session" {
		t.Error("Answer returned the caller's rule, not a copy")
	}

	r := Answer(nil, parsed(t, `{"handle":"bg-1"}`))
	if r.DefaultBehavior != Allow || r.Segments != nil || r.Unknown || r.Decision != Allow || r.Rule != nil {
		t.Errorf("retrieve answer: %+v", r)
	}

	// JSON shape: null where the protocol says null, [] for no rules.
	u := Answer(nil, parsed(t, `{"command":"ls > out"}`))
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"rule":null`, `"segments":null`, `"ruleForCall":null`, `"descriptions":[]`, `"unknown":true`, `"defaultBehavior":"ask"`, `"decision":"ask"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("answer JSON %s lacks %s", b, want)
		}
	}
}

// TestZeroGrammarIsReference: a Grammar with no piece replaced answers as
// the reference, and each replacement reaches the answer.
func TestZeroGrammarIsReference(t *testing.T) {
	rm := "rm:*"
	rules := []protocol.Rule{{Source: "session", Behavior: Deny, Content: &rm}}
	p := parsed(t, `{"command":"ls && rm -rf build"}`)
	want := Answer(rules, p)
	if got := (Grammar{}).Answer(rules, p); !reflect.DeepEqual(got, want) {
		t.Fatalf("zero Grammar answers %+v, reference %+v", got, want)
	}
	if got := (Grammar{DenyEvery: true}).Answer(rules, p); got.Decision != Ask {
		t.Errorf("DenyEvery: decision %q, want ask", got.Decision)
	}
	unknown := func(string) Classification { return Classification{Unknown: true, Reason: "test: all"} }
	if got := (Grammar{Classify: unknown}).Answer(nil, p); !got.Unknown {
		t.Error("Classify replacement not used")
	}
	nbsp := parsed(t, `{"command":"ls"}`)
	rule := "ls\u00a0"
	allow := []protocol.Rule{{Source: "session", Behavior: Allow, Content: &rule}}
	if got := (Grammar{IsSpace: func(r rune) bool { return r == ' ' }}).Answer(allow, nbsp); got.Decision != Ask {
		t.Errorf("IsSpace replacement not used: decision %q", got.Decision)
	}
}
