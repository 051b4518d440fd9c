package permission

import (
	"unicode/utf16"
	"unicode/utf8"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

// Sources lists the rule sources from highest to lowest precedence (PERM-36).
var Sources = []string{"policy", "flag", "local", "project", "user", "cliArg", "command", "session"}

var sourceRank = func() map[string]int {
	m := make(map[string]int, len(Sources))
	for i, s := range Sources {
		m[s] = i
	}
	return m
}()

// rank is a source's precedence, lower is higher. A source not in Sources
// ranks below every known one, and all such sources share that rank
// (PERM-38), as upstream's `?? Infinity`.
func rank(source string) int {
	if r, ok := sourceRank[source]; ok {
		return r
	}
	return len(Sources)
}

// Decide runs the engine of ADR 0004 (PERM-35 to PERM-41) over rules for one
// call. It returns the decision and the winning rule (a pointer into rules),
// or a nil rule when no rule matched and the tool's defaults decided.
//
// Decide returns "ask" when the outcome is to ask; it does not know whether
// anyone can answer. A caller with no interactive responder must treat "ask"
// as "deny" and not run the call (PERM-42).
func Decide(rules []protocol.Rule, p call.Parsed) (decision string, winner *protocol.Rule) {
	return ref.decide(rules, p)
}

func (g grammar) decide(rules []protocol.Rule, p call.Parsed) (string, *protocol.Rule) {
	return g.view(p).decide(rules)
}

// decide runs the engine over one view of the call, so that the command is
// classified once however many rules there are (PERM-53).
func (v *view) decide(rules []protocol.Rule) (string, *protocol.Rule) {
	unknown := v.unknown()
	var win *protocol.Rule
	for i := range rules {
		r := &rules[i]
		if !v.ruleMatches(r, unknown) {
			continue
		}
		if win == nil || beats(r, win) {
			win = r
		}
	}
	if win != nil {
		return win.Behavior, win
	}
	// PERM-41: the per-call default, then the tool's default.
	if d := DefaultBehaviorFor(v.p); d != "" {
		return d, nil
	}
	return DefaultBehavior(), nil
}

// ruleMatches decides whether one rule applies to the call (PERM-35,
// PERM-39, PERM-40). A rule without content is tool-wide.
func (v *view) ruleMatches(r *protocol.Rule, unknown bool) bool {
	switch r.Behavior {
	case Deny:
		// PERM-39: every deny rule applies to an unknown call.
		if unknown || r.Content == nil {
			return true
		}
		return v.matchesDeny(*r.Content)
	case Allow:
		// PERM-39: no allow rule, tool-wide ones included, applies to an
		// unknown call.
		if unknown {
			return false
		}
		return r.Content == nil || v.matches(*r.Content)
	case Ask:
		return r.Content == nil || v.matches(*r.Content)
	}
	// A behaviour outside allow, deny and ask is not a rule this engine
	// can apply (PERM-35); it never wins.
	return false
}

// beats reports whether matching rule a outranks matching rule b, the
// current winner (PERM-36, PERM-37). Ties keep the earlier rule.
func beats(a, b *protocol.Rule) bool {
	ra, rb := rank(a.Source), rank(b.Source)
	if ra != rb {
		return ra < rb
	}
	switch {
	case a.Content == nil:
		return false // a tool-wide rule never displaces a same-rank winner
	case b.Content == nil:
		return true // content beats tool-wide
	}
	la, lb := utf16Len(*a.Content), utf16Len(*b.Content)
	if la != lb {
		return la > lb
	}
	return utf16Less(*a.Content, *b.Content)
}

// utf16Len is a string's length in UTF-16 code units, JavaScript's
// String.length, which upstream's "longer content wins" measures.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		// Ranging never yields a surrogate (invalid bytes decode to
		// U+FFFD), so RuneLen is always 1 or 2 here.
		n += utf16.RuneLen(r)
	}
	return n
}

// utf16Less orders two strings by UTF-16 code units, which differs from
// Go's byte (code point) order only when a supplementary character meets a
// character from U+E000 to U+FFFF.
func utf16Less(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			ua, ub := firstUnit(ra), firstUnit(rb)
			if ua != ub {
				return ua < ub
			}
			// Same high surrogate: the low surrogates order as the runes do.
			return ra < rb
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

func firstUnit(r rune) rune {
	if r >= 0x10000 {
		hi, _ := utf16.EncodeRune(r)
		return hi
	}
	return r
}

// Answer applies every permission function of the tool to one call, plus the
// engine's decision for rules, as the permission request of the wire
// protocol reports them (PERM-43).
func Answer(rules []protocol.Rule, p call.Parsed) protocol.PermissionAnswer {
	return ref.answer(rules, p)
}

func (g grammar) answer(rules []protocol.Rule, p call.Parsed) protocol.PermissionAnswer {
	v := g.view(p)
	decision, win := v.decide(rules)
	a := protocol.PermissionAnswer{
		Decision:        decision,
		Unknown:         v.unknown(),
		DefaultBehavior: DefaultBehaviorFor(p),
		RuleForCall:     v.ruleForCall(),
		Preview:         Preview(p),
		Descriptions:    make([]string, len(rules)),
	}
	if a.DefaultBehavior == "" {
		a.DefaultBehavior = DefaultBehavior()
	}
	if win != nil {
		w := *win
		a.Rule = &w
	}
	if v.ok {
		a.Segments = v.c.Segments
	}
	for i, r := range rules {
		if r.Content != nil {
			a.Descriptions[i] = Describe(*r.Content)
		}
	}
	return a
}
