package permission

import (
	"github.com/apexcheck/apexcheck/ref/call"
)

// BackgroundHandleRule is the reserved rule content that governs retrieve
// and kill calls on background handles (PERM-9).
const BackgroundHandleRule = "background-handle"

// Behaviours a rule or a decision can have.
const (
	Allow = "allow"
	Deny  = "deny"
	Ask   = "ask"
)

// DefaultBehavior is the tool's behaviour when no rule matches and the
// per-call default gives none: ask (PERM-1).
func DefaultBehavior() string { return Ask }

// DefaultBehaviorFor is the per-call default: allow for a retrieve or kill
// call, which starts no new execution, and "" (JavaScript's undefined) for a
// run call or a rejected call (PERM-2).
func DefaultBehaviorFor(p call.Parsed) string {
	if p.OK && p.Operation.Kind != call.Run {
		return Allow
	}
	return ""
}

// Matches is the tool's allow matcher (PERM-3): a rejected call matches
// nothing; a retrieve or kill call matches only the reserved rule; a run call
// matches when its command classifies as segments and every segment matches
// the rule.
func Matches(rule string, p call.Parsed) bool { return ref.matches(rule, p) }

// MatchesDeny is the tool's deny matcher (PERM-4): as Matches, except that
// some segment matching is enough.
func MatchesDeny(rule string, p call.Parsed) bool { return ref.matchesDeny(rule, p) }

// IsUnknown reports whether no allow rule may authorise the call (PERM-5): a
// rejected call, or a run call whose command does not classify as segments.
func IsUnknown(p call.Parsed) bool { return ref.isUnknown(p) }

// Describe renders a rule's content for a human (PERM-6).
func Describe(rule string) string {
	if rule == BackgroundHandleRule {
		return "Retrieve or kill background shell commands"
	}
	return `Run bash commands matching "` + rule + `"`
}

// Preview is what a human approving the call is shown (PERM-7): the
// rejection reason, a sentence naming the handle, or the command exactly as
// sent, as one line however many newlines it holds.
func Preview(p call.Parsed) []string {
	switch {
	case !p.OK:
		return []string{p.Reason}
	case p.Operation.Kind == call.Kill:
		return []string{"Kill background shell command " + p.Operation.Handle}
	case p.Operation.Kind == call.Retrieve:
		return []string{"Retrieve output from background shell command " + p.Operation.Handle}
	}
	return []string{p.Operation.Command}
}

// RuleForCall is the rule "always allow this" would persist (PERM-8), or nil
// when the call cannot be generalised into one.
func RuleForCall(p call.Parsed) *string { return ref.ruleForCall(p) }

func (g grammar) segmentsOf(p call.Parsed) (Classification, bool) {
	if !p.OK || p.Operation.Kind != call.Run {
		return Classification{}, false
	}
	c := g.classify(p.Operation.Command)
	return c, !c.Unknown
}

func (g grammar) matches(rule string, p call.Parsed) bool {
	return g.ruleApplies(rule, p, segmentTexts, every)
}

// segmentTexts are the texts an allow or ask rule is compared with: the
// segments.
func segmentTexts(c Classification) []text {
	t := make([]text, len(c.Segments))
	for i, s := range c.Segments {
		t[i] = text{s, GrammarSensitive(s)}
	}
	return t
}

// matchesDeny also sees the commands the segments run behind wrappers and
// paths (PERM-47): `nohup rm x` runs rm, so `rm:*` must refuse it.
func (g grammar) matchesDeny(rule string, p call.Parsed) bool {
	return g.ruleApplies(rule, p, g.denyTexts, g.denyQuantifier)
}

// denyTexts are the texts a deny rule is compared with: the segments, then
// the commands they run behind wrappers and paths (PERM-47).
func denyTexts(c Classification) []text {
	t := segmentTexts(c)
	for i, s := range c.Inner {
		raw := false
		if len(c.rawInner) == len(c.Inner) {
			raw = c.rawInner[i]
		} else {
			raw = GrammarSensitive(s) // a classification from elsewhere (Grammar.Classify)
		}
		t = append(t, text{s, raw})
	}
	return t
}

// ruleApplies is the shape allow and deny matching share: a rejected call
// matches nothing, a handle call only the reserved rule, and a run call
// whose command classifies quantifies over the rule's matches among texts
// of its classification — every segment for allow, some segment or inner
// command for deny.
func (g grammar) ruleApplies(rule string, p call.Parsed, texts func(Classification) []text, quantify func([]text, func(text) bool) bool) bool {
	if !p.OK {
		return false
	}
	if p.Operation.Kind != call.Run {
		return rule == BackgroundHandleRule
	}
	c, ok := g.segmentsOf(p)
	return ok && quantify(texts(c), func(t text) bool { return g.matchText(t, rule) })
}

func (g grammar) isUnknown(p call.Parsed) bool {
	if !p.OK {
		return true
	}
	if p.Operation.Kind != call.Run {
		return false
	}
	_, ok := g.segmentsOf(p)
	return !ok
}

func (g grammar) ruleForCall(p call.Parsed) *string {
	if !p.OK {
		return nil
	}
	if p.Operation.Kind != call.Run {
		r := BackgroundHandleRule
		return &r
	}
	c, ok := g.segmentsOf(p)
	if !ok || len(c.Segments) != 1 {
		return nil
	}
	r := c.Segments[0]
	if !GrammarSensitive(r) {
		r = g.normalize(r)
	}
	return &r
}
