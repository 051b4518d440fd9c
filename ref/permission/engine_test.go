package permission

import (
	"slices"
	"testing"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

func TestUTF16Len(t *testing.T) {
	tests := map[string]int{
		"":                0,
		"ls":              2,
		"é":               1,
		"\u00a0":          1,
		"\u3000":          1,
		"\U0001F600":      2,
		"echo \U0001F600": 7,
		"a\xffb":          3, // an invalid byte counts as one U+FFFD
	}
	for s, want := range tests {
		if got := utf16Len(s); got != want {
			t.Errorf("utf16Len(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestUTF16Less(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"a", "b", true},
		{"b", "a", false},
		{"a", "a", false},
		{"ab", "abc", true},
		{"abc", "ab", false},
		{"", "a", true},
		{"B", "a", true}, // code units, not a locale's collation
		// U+1F600 is D83D DE00 in UTF-16, so it orders before U+FF61,
		// although its code point (and UTF-8 bytes) order after.
		{"\U0001F600", "\uFF61", true},
		{"\uFF61", "\U0001F600", false},
		{"\U0001F600", "\U0001F601", true},
	}
	for _, tt := range tests {
		if got := utf16Less(tt.a, tt.b); got != tt.want {
			t.Errorf("utf16Less(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestSourceRank(t *testing.T) {
	for i := 1; i < len(Sources); i++ {
		if rank(Sources[i-1]) >= rank(Sources[i]) {
			t.Errorf("%s does not outrank %s", Sources[i-1], Sources[i])
		}
	}
	if rank("team") <= rank("session") || rank("team") != rank("") {
		t.Error("unrecognised sources must share the rank below session")
	}
}

func TestDecideWinnerPointsIntoRules(t *testing.T) {
	rules := []protocol.Rule{{Source: "session", Behavior: Allow, Content: strp("ls")}}
	_, w := Decide(rules, call.Parse(runArgs("ls")))
	if w != &rules[0] {
		t.Errorf("winner %p is not &rules[0] %p", w, &rules[0])
	}
}

func TestDecideIgnoresUnrecognisedBehaviour(t *testing.T) {
	rules := []protocol.Rule{{Source: "policy", Behavior: "maybe"}, {Source: "policy", Behavior: "ALLOW", Content: strp("ls")}}
	for _, args := range []string{`{"command":"ls"}`, `{"handle":"h"}`, `[]`} {
		d, w := Decide(rules, call.Parse([]byte(args)))
		if w != nil || (d != Ask && d != Allow) {
			t.Errorf("%s: decision %q winner %v", args, d, w)
		}
	}
}

// TestEngineOrderIndependence: apart from exact ties, which the earlier
// rule wins, the decision and winner do not depend on the order rules are
// listed in (PERM-37). Every engine.json entry without a tie is replayed
// reversed and rotated.
func TestEngineOrderIndependence(t *testing.T) {
	for i, e := range load[engineEntry](t, "engine.json") {
		p := call.Parse(e.Arguments)
		if hasTie(e.Rules, p) {
			continue
		}
		wantD, wantW := Decide(e.Rules, p)
		orders := [][]protocol.Rule{slices.Clone(e.Rules), slices.Clone(e.Rules)}
		slices.Reverse(orders[0])
		if len(orders[1]) > 1 {
			orders[1] = append(orders[1][1:], orders[1][0])
		}
		for _, rules := range orders {
			d, w := Decide(rules, p)
			if d != wantD || !protocol.SameRule(w, wantW) {
				t.Errorf("engine[%d] reordered: %q %s, want %q %s", i, d, ruleString(w), wantD, ruleString(wantW))
			}
		}
	}
}

// hasTie reports whether two matching rules are indistinguishable to the
// engine: same rank and both tool-wide or with equal content.
func hasTie(rules []protocol.Rule, p call.Parsed) bool {
	v := ref.view(p)
	unknown := v.unknown()
	var matching []protocol.Rule
	for i := range rules {
		if v.ruleMatches(&rules[i], unknown) {
			matching = append(matching, rules[i])
		}
	}
	for i := range matching {
		for j := i + 1; j < len(matching); j++ {
			a, b := matching[i], matching[j]
			if rank(a.Source) == rank(b.Source) && (a.Content == nil) == (b.Content == nil) &&
				(a.Content == nil || *a.Content == *b.Content) {
				return true
			}
		}
	}
	return false
}
