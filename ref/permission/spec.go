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

// view is one call as every permission function sees it: parsed, and for
// a run call its command classified once, with the texts rules are
// compared with prepared once, whatever the number of rules (PERM-53).
type view struct {
	g   grammar
	p   call.Parsed
	run bool // p is a run call
	ok  bool // p is a run call whose command classifies as segments
	c   Classification
	// segments and deny are the prepared texts allow and deny rules are
	// compared with (PERM-3, PERM-4, PERM-47), made on first use.
	segments []text
	deny     *textIndex
}

func (g grammar) view(p call.Parsed) *view {
	v := &view{g: g, p: p, run: p.OK && p.Operation.Kind == call.Run}
	if v.run {
		v.c = g.classify(p.Operation.Command)
		v.ok = !v.c.Unknown
	}
	return v
}

func (g grammar) matches(rule string, p call.Parsed) bool {
	return g.view(p).matches(rule)
}

func (g grammar) matchesDeny(rule string, p call.Parsed) bool {
	return g.view(p).matchesDeny(rule)
}

func (g grammar) isUnknown(p call.Parsed) bool { return g.view(p).unknown() }

func (g grammar) ruleForCall(p call.Parsed) *string { return g.view(p).ruleForCall() }

// matches is the allow matcher: every segment matches the rule (PERM-3).
func (v *view) matches(content string) bool {
	if v.segments == nil && v.ok {
		v.segments = segmentTexts(v.c)
	}
	return v.ruleApplies(content, func(r rule) bool { return every(v.segments, r.matches) })
}

// segmentTexts are the texts an allow or ask rule is compared with: the
// segments, each distinct one once. Both quantifiers (every, some) are
// blind to repetition and a long chain repeats its commands, so each rule
// then costs the distinct segments only (PERM-53). Segments do not
// overlap, so hashing them costs the command's length once.
func segmentTexts(c Classification) []text {
	t, _ := distinctSegments(c, 0)
	return t
}

// distinctSegments returns the distinct segments as texts, in a list with
// room for extra more, and, for each segment, whether it is the first of
// its text.
func distinctSegments(c Classification, extra int) ([]text, []bool) {
	// No size hint for the set, nor for the segments in the list: a long
	// chain repeats its commands, and sizing them for every segment
	// cleared a table of 100,000 entries to keep one. The room for the
	// extra texts is made at once: 175,000 inner commands appended one by
	// one grew the list a quarter at a time (PERM-53).
	seen := map[string]bool{}
	first := make([]bool, len(c.Segments))
	t := make([]text, 0, 1+extra)
	for i, s := range c.Segments {
		if !seen[s] {
			seen[s] = true
			first[i] = true
			t = append(t, text{s, GrammarSensitive(s)})
		}
	}
	return t, first
}

// matchesDeny also sees the commands the segments run behind wrappers and
// paths (PERM-47): `nohup rm x` runs rm, so `rm:*` must refuse it.
func (v *view) matchesDeny(content string) bool {
	return v.ruleApplies(content, func(r rule) bool {
		if v.deny == nil {
			v.deny = newTextIndex(v.g.denyTexts(v.c), v.g.isSpace)
		}
		if v.g.denyEvery {
			return every(v.deny.all, r.matches)
		}
		return v.deny.some(r)
	})
}

// denyTexts are the texts a deny rule is compared with: the segments, then
// the commands they run behind wrappers and paths (PERM-47), each once
// (PERM-53). Inner commands are not hashed: a chain of n wrappers has n
// of them, suffixes of one segment, and hashing them would cost n². An
// inner command is the suffix of its segment of its length, so the inner
// commands of a segment met before are ones already listed; an inner
// command equal to some segment may be listed twice, which costs a
// comparison and changes no quantifier's answer.
func denyTexts(c Classification) []text {
	t, first := distinctSegments(c, len(c.Inner))
	known := len(c.rawInner) == len(c.Inner) && len(c.innerSegment) == len(c.Inner)
	var seen map[string]bool // for a classification from elsewhere (Grammar.Classify)
	if !known {
		seen = make(map[string]bool, len(c.Inner))
	}
	for i, s := range c.Inner {
		if known {
			if !first[c.innerSegment[i]] {
				continue
			}
			t = append(t, text{s, c.rawInner[i]})
			continue
		}
		if !seen[s] {
			seen[s] = true
			t = append(t, text{s, GrammarSensitive(s)})
		}
	}
	return t
}

// ruleApplies is the shape allow and deny matching share: a rejected call
// matches nothing, a handle call only the reserved rule, and for a run call
// whose command classifies, match decides with the prepared rule over
// texts of its classification — every segment for allow, some segment or
// inner command for deny.
func (v *view) ruleApplies(content string, match func(rule) bool) bool {
	if !v.p.OK {
		return false
	}
	if !v.run {
		return content == BackgroundHandleRule
	}
	if !v.ok {
		return false
	}
	return match(v.g.prepareRule(content))
}

// unknown is PERM-5: a rejected call, or a run call that does not
// classify.
func (v *view) unknown() bool {
	return !v.p.OK || v.run && !v.ok
}

func (v *view) ruleForCall() *string {
	if !v.p.OK {
		return nil
	}
	if !v.run {
		r := BackgroundHandleRule
		return &r
	}
	if !v.ok || len(v.c.Segments) != 1 {
		return nil
	}
	r := v.c.Segments[0]
	if !GrammarSensitive(r) {
		r = v.g.normalize(r)
	}
	return &r
}
