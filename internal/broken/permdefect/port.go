package permdefect

import (
	"strings"
	"unicode/utf16"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/permission"
)

// Port is the tool's permission functions, the rule matcher and the rule
// engine (PERM-1 to PERM-16, PERM-34 to PERM-43) written again by hand, as
// a porter writes them from spec/permissions.md, on top of the reference's
// segmenter (permission.Classify). Every field left zero gives the
// reference's answer, which the control perm-port of internal/broken
// proves against every permission scenario; a variant sets one field to
// make the one mistake it names.
type Port struct {
	// ToolDefault replaces the tool's default behaviour ask (PERM-1).
	ToolDefault string
	// HandleDefaultUndefined gives retrieve and kill calls no per-call
	// default, as for a run call (PERM-2).
	HandleDefaultUndefined bool
	// AllowSome makes the allow matcher need some segment to match, not
	// every one: the deny matcher's quantifier copied (PERM-3).
	AllowSome bool
	// HandleCallsUnknown reports retrieve and kill calls unknown, since no
	// command of theirs classifies (PERM-5).
	HandleCallsUnknown bool
	// DescribeQuoted inserts the content into the description as a JSON
	// string, escaped, as JSON.stringify does (PERM-6).
	DescribeQuoted bool
	// PreviewLines previews a run call as its command's lines (PERM-7).
	PreviewLines bool
	// RuleForWholeCommand persists the whole command, normalised, as the
	// rule of a chain (PERM-8).
	RuleForWholeCommand bool
	// HandleRuleAsSegment matches a retrieve or kill call as if it were a
	// run call whose only segment is the reserved rule, so that
	// ` background-handle` and `background-handle:*` match it (PERM-9).
	HandleRuleAsSegment bool
	// TrimOnly normalises by trimming only, without collapsing the runs of
	// whitespace inside (PERM-11).
	TrimOnly bool
	// SensitiveQuotesOnly counts only quotes and the backslash as
	// grammar-sensitive, not TAB, LF or `#` (PERM-12).
	SensitiveQuotesOnly bool
	// PrefixUntrimmed keeps the blanks before `:*` in a prefix rule's
	// prefix (PERM-13).
	PrefixUntrimmed bool
	// EmptyPrefixMatches lets the prefix rule `:*` match every segment, as
	// startsWith("") does (PERM-14).
	EmptyPrefixMatches bool
	// NoWordBoundary matches a prefix rule against any segment that starts
	// with the prefix, boundary or not (PERM-15).
	NoWordBoundary bool
	// StarWildcard reads `*` in content that is not a prefix rule as a
	// glob matching any text (PERM-16).
	StarWildcard bool
	// ToolWideAsEmpty reads a rule without content as content "", which
	// matches no segment, instead of a tool-wide rule (PERM-34).
	ToolWideAsEmpty bool
	// AskMatchesLikeDeny compares ask rules with the deny matcher (some
	// segment or inner command), instead of the allow matcher (PERM-35).
	AskMatchesLikeDeny bool
	// Sources replaces the order of precedence of the sources (PERM-36).
	Sources []string
	// DenyOverrides lets an applying deny rule win over any allow or ask
	// rule, whatever their sources (PERM-37).
	DenyOverrides bool
	// UnlistedFirst ranks a source not in the list above every listed
	// one, as indexOf's -1 does (PERM-38).
	UnlistedFirst bool
	// ToolWideAllowsUnknown lets a tool-wide allow rule apply to an
	// unknown call (PERM-39).
	ToolWideAllowsUnknown bool
	// AskAppliesToUnknown lets every ask rule apply to an unknown call, as
	// every deny rule does (PERM-40).
	AskAppliesToUnknown bool
	// DefaultBeforeRules decides a call with a per-call default by that
	// default, before looking at the rules (PERM-41).
	DefaultBeforeRules bool
	// AskResolved reports an ask decision as the deny it resolves to
	// without a responder (PERM-42).
	AskResolved bool
	// DescriptionsOfContent describes only the rules with content, so that
	// the descriptions no longer line up with the rules (PERM-43).
	DescriptionsOfContent bool
}

// Answer is the permission answer (PERM-43) for rules and one parsed call.
func (e Port) Answer(rules []protocol.Rule, p call.Parsed) protocol.PermissionAnswer {
	c := e.see(p)
	decision, win := e.decide(rules, c)
	a := protocol.PermissionAnswer{
		Decision:        decision,
		Unknown:         c.unknown,
		DefaultBehavior: e.perCallDefault(p),
		RuleForCall:     e.ruleForCall(c),
		Preview:         e.preview(p),
	}
	if a.DefaultBehavior == "" {
		a.DefaultBehavior = e.toolDefault()
	}
	if e.AskResolved && a.Decision == permission.Ask {
		a.Decision = permission.Deny
	}
	if win != nil {
		w := *win
		a.Rule = &w
	}
	if c.classifies {
		a.Segments = c.class.Segments
	}
	a.Descriptions = []string{}
	for _, r := range rules {
		switch {
		case r.Content != nil:
			a.Descriptions = append(a.Descriptions, e.describe(*r.Content))
		case !e.DescriptionsOfContent:
			a.Descriptions = append(a.Descriptions, "")
		}
	}
	return a
}

// seen is one call as the functions see it.
type seen struct {
	p          call.Parsed
	run        bool
	classifies bool
	unknown    bool
	class      permission.Classification
}

func (e Port) see(p call.Parsed) seen {
	c := seen{p: p, run: p.OK && p.Operation.Kind == call.Run}
	if c.run {
		c.class = permission.Classify(p.Operation.Command)
		c.classifies = !c.class.Unknown
	}
	c.unknown = !p.OK || c.run && !c.classifies || e.HandleCallsUnknown && !c.run
	return c
}

func (e Port) toolDefault() string {
	if e.ToolDefault != "" {
		return e.ToolDefault
	}
	return permission.Ask
}

func (e Port) perCallDefault(p call.Parsed) string {
	if p.OK && p.Operation.Kind != call.Run && !e.HandleDefaultUndefined {
		return permission.Allow
	}
	return ""
}

func (e Port) decide(rules []protocol.Rule, c seen) (string, *protocol.Rule) {
	if d := e.perCallDefault(c.p); e.DefaultBeforeRules && d != "" {
		return d, nil
	}
	var win *protocol.Rule
	for i := range rules {
		r := &rules[i]
		if e.applies(r, c) && (win == nil || e.beats(r, win)) {
			win = r
		}
	}
	if win != nil {
		return win.Behavior, win
	}
	if d := e.perCallDefault(c.p); d != "" {
		return d, nil
	}
	return e.toolDefault(), nil
}

// applies is PERM-35 with PERM-39 and PERM-40.
func (e Port) applies(r *protocol.Rule, c seen) bool {
	content := r.Content
	if content == nil && e.ToolWideAsEmpty {
		content = new(string)
	}
	switch r.Behavior {
	case permission.Deny:
		if c.unknown || content == nil {
			return true
		}
		return e.matchesDeny(*content, c)
	case permission.Allow:
		if content == nil && e.ToolWideAllowsUnknown {
			return true
		}
		if c.unknown {
			return false
		}
		return content == nil || e.matches(*content, c)
	case permission.Ask:
		if content == nil || c.unknown && e.AskAppliesToUnknown {
			return true
		}
		if e.AskMatchesLikeDeny {
			return e.matchesDeny(*content, c)
		}
		return e.matches(*content, c)
	}
	return false
}

// decidedBeforeSegments is what both matchers answer before looking at
// segments: nothing for a call that does not parse or classify, the
// handle's rule for one that is not a run. ok is false when the segments
// decide.
func (e Port) decidedBeforeSegments(content string, c seen) (match, ok bool) {
	switch {
	case !c.p.OK:
		return false, true
	case !c.run:
		return e.matchesHandle(content), true
	case !c.classifies:
		return false, true
	}
	return false, false
}

// matches is the allow matcher (PERM-3).
func (e Port) matches(content string, c seen) bool {
	if m, ok := e.decidedBeforeSegments(content, c); ok {
		return m
	}
	for _, s := range c.class.Segments {
		m := e.segmentMatches(s, content)
		if e.AllowSome && m {
			return true
		}
		if !e.AllowSome && !m {
			return false
		}
	}
	return !e.AllowSome
}

// matchesDeny is the deny matcher (PERM-4, PERM-47).
func (e Port) matchesDeny(content string, c seen) bool {
	if m, ok := e.decidedBeforeSegments(content, c); ok {
		return m
	}
	for _, s := range append(append([]string(nil), c.class.Segments...), c.class.Inner...) {
		if e.segmentMatches(s, content) {
			return true
		}
	}
	return false
}

// matchesHandle is PERM-9.
func (e Port) matchesHandle(content string) bool {
	if e.HandleRuleAsSegment {
		return e.segmentMatches(permission.BackgroundHandleRule, content)
	}
	return content == permission.BackgroundHandleRule
}

// segmentMatches is the seed's segmentMatchesRule (PERM-11 to PERM-16).
func (e Port) segmentMatches(segment, content string) bool {
	if !e.sensitive(segment) && !e.sensitive(content) {
		segment, content = e.normalize(segment), e.normalize(content)
	}
	if strings.HasSuffix(content, ":*") {
		prefix := content[:len(content)-2]
		if !e.PrefixUntrimmed {
			prefix = strings.TrimFunc(prefix, isSpace)
		}
		if prefix == "" {
			return e.EmptyPrefixMatches
		}
		if e.NoWordBoundary {
			return strings.HasPrefix(segment, prefix)
		}
		return segment == prefix || strings.HasPrefix(segment, prefix+" ")
	}
	if e.StarWildcard && strings.Contains(content, "*") {
		return glob(content, segment)
	}
	return segment == content
}

// glob matches s against pattern, where `*` matches any text.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, part := range parts[1 : len(parts)-1] {
		i := strings.Index(s, part)
		if i < 0 {
			return false
		}
		s = s[i+len(part):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// sensitive is PERM-12.
func (e Port) sensitive(s string) bool {
	if e.SensitiveQuotesOnly {
		return strings.ContainsAny(s, "\"'\\")
	}
	return strings.ContainsAny(s, "\"'\\\t\n#")
}

// normalize is PERM-11: `text.trim().replace(/\s+/g, " ")`.
func (e Port) normalize(s string) string {
	s = strings.TrimFunc(s, isSpace)
	if e.TrimOnly {
		return s
	}
	var b strings.Builder
	blank := false
	for _, r := range s {
		if isSpace(r) {
			blank = true
			continue
		}
		if blank {
			b.WriteByte(' ')
			blank = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isSpace is ECMAScript's whitespace (PERM-10).
func isSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ',
		0x00A0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF:
		return true
	}
	return r >= 0x2000 && r <= 0x200A
}

// beats reports whether applying rule a outranks b, the winner so far
// (PERM-36 to PERM-38).
func (e Port) beats(a, b *protocol.Rule) bool {
	if e.DenyOverrides && (a.Behavior == permission.Deny) != (b.Behavior == permission.Deny) {
		return a.Behavior == permission.Deny
	}
	if ra, rb := e.rank(a.Source), e.rank(b.Source); ra != rb {
		return ra < rb
	}
	switch {
	case a.Content == nil:
		return false
	case b.Content == nil:
		return true
	}
	ua, ub := utf16.Encode([]rune(*a.Content)), utf16.Encode([]rune(*b.Content))
	if len(ua) != len(ub) {
		return len(ua) > len(ub)
	}
	for i := range ua {
		if ua[i] != ub[i] {
			return ua[i] < ub[i]
		}
	}
	return false
}

func (e Port) rank(source string) int {
	sources := e.Sources
	if sources == nil {
		sources = permission.Sources
	}
	for i, s := range sources {
		if s == source {
			return i
		}
	}
	if e.UnlistedFirst {
		return -1
	}
	return len(sources)
}

// ruleForCall is PERM-8.
func (e Port) ruleForCall(c seen) *string {
	if !c.p.OK {
		return nil
	}
	if !c.run {
		r := permission.BackgroundHandleRule
		return &r
	}
	if !c.classifies {
		return nil
	}
	var r string
	switch {
	case len(c.class.Segments) == 1:
		r = c.class.Segments[0]
	case e.RuleForWholeCommand:
		r = c.p.Operation.Command
	default:
		return nil
	}
	if !e.sensitive(r) {
		r = e.normalize(r)
	}
	return &r
}

// preview is PERM-7.
func (e Port) preview(p call.Parsed) []string {
	if e.PreviewLines && p.OK && p.Operation.Kind == call.Run {
		return strings.Split(p.Operation.Command, "\n")
	}
	return permission.Preview(p)
}

// describe is PERM-6.
func (e Port) describe(content string) string {
	if content == permission.BackgroundHandleRule {
		return permission.Describe(content)
	}
	if e.DescribeQuoted {
		q, _ := protocol.Marshal(content)
		return "Run bash commands matching " + strings.TrimSuffix(string(q), "\n")
	}
	return `Run bash commands matching "` + content + `"`
}
