package permission

import (
	"slices"
	"strings"
	"testing"
	"unicode"
)

// seedMatches is the seed's segmentMatchesRule written out whole (PERM-11
// to PERM-16): both sides normalised in full, then compared. rule.matches
// must agree with it while reading only a head of the text.
func seedMatches(g grammar, segment, rule string) bool {
	if !GrammarSensitive(segment) && !GrammarSensitive(rule) {
		segment, rule = g.normalize(segment), g.normalize(rule)
	}
	if strings.HasSuffix(rule, ":*") {
		prefix := g.trim(rule[:len(rule)-2])
		if prefix == "" {
			return false
		}
		return segment == prefix ||
			(len(segment) > len(prefix) && segment[len(prefix)] == ' ' && strings.HasPrefix(segment, prefix))
	}
	return segment == rule
}

// TestPreparedMatchesSeed compares the prepared matcher, with the
// sensitivities the segmenter found, with the seed's over every text of
// the corpus (segments and inner commands) and rules made from them and
// from rules.json.
func TestPreparedMatchesSeed(t *testing.T) {
	var texts []text
	rules := []string{"", ":*", " :*", "ls", "ls:*", "rm:*", "nohup:*", "git diff:*", "a\tb:*"}
	for _, e := range load[ruleEntry](t, "rules.json") {
		texts = append(texts, text{e.Segment, GrammarSensitive(e.Segment)})
		rules = append(rules, e.Rule)
	}
	for _, e := range load[commandEntry](t, "commands.json") {
		c := Classify(e.Command)
		if c.Unknown {
			continue
		}
		texts = append(texts, denyTexts(c)...)
		for _, s := range append(slices.Clip(c.Segments), c.Inner...) {
			w := strings.Fields(s)
			rules = append(rules, s, w[0]+":*", w[0]+"  :*", strings.Join(w[:min(2, len(w))], "  ")+":*")
		}
	}
	for _, in := range texts {
		if in.raw != GrammarSensitive(in.s) {
			t.Errorf("%q: sensitivity %v from the segmenter, GrammarSensitive says %v", in.s, in.raw, !in.raw)
		}
	}
	for _, r := range rules {
		p := ref.prepareRule(r)
		for _, in := range texts {
			if got, want := p.matches(in), seedMatches(ref, in.s, r); got != want {
				t.Errorf("rule %q, text %q: prepared %v, seed %v", r, in.s, got, want)
			}
		}
	}
}

// TestDenyTextsDistinct checks that listing each distinct segment once, and
// the inner commands of a repeated segment not at all, loses no text: the
// set equals that of every segment and inner command.
func TestDenyTextsDistinct(t *testing.T) {
	for _, cmd := range []string{
		"nohup rm x; nohup rm x; env nohup rm y && nohup rm x",
		"ls | ls | nohup ls; env nohup ls",
		"nice -n 1 rm x; nice -n 1 rm x; nice -n 2 rm x",
	} {
		c := Classify(cmd)
		if c.Unknown {
			t.Fatalf("%q: %s", cmd, c.Reason)
		}
		want := map[string]bool{}
		for _, s := range append(slices.Clip(c.Segments), c.Inner...) {
			want[s] = true
		}
		got := map[string]bool{}
		n := 0
		for _, in := range denyTexts(c) {
			got[in.s] = true
			n++
		}
		if len(got) != len(want) || n >= len(c.Segments)+len(c.Inner) {
			t.Errorf("%q: deny texts %v (%d listed) for %v", cmd, got, n, want)
		}
		for s := range want {
			if !got[s] {
				t.Errorf("%q: %q lost", cmd, s)
			}
		}
	}
}

// TestTextIndex checks that a deny rule finds a match through the index
// of texts by first byte exactly when it finds one among all the texts,
// for every rule and text shape the index treats apart: texts starting
// with a blank (under each whitespace set), a non-ASCII byte or nothing;
// rules whose raw and normalised forms start differently, or are empty;
// grammar-sensitive rules and texts.
func TestTextIndex(t *testing.T) {
	heads := []string{"ls", "rm", "nohup", "git", "a", " a", "\ta", "\u00a0a", "\u3000rm", "é", "'a'", "\"rm\"", "\\rm", "#", ""}
	tails := []string{"", " x", "  x", "\tx", " -rf /", ":*", "'", " y z"}
	var texts []text
	for _, h := range heads {
		for _, tl := range tails {
			s := h + tl
			texts = append(texts, text{s, GrammarSensitive(s)})
		}
	}
	rules := []string{"\t:*", "\n:*", " \t :*"} // grammar-sensitive, and empty once trimmed
	for _, h := range heads {
		for _, tl := range []string{"", ":*", " :*", " x", " x:*", "  x:*", "\tx:*"} {
			rules = append(rules, h+tl, " "+h+tl, "\u00a0"+h+tl)
		}
	}
	for _, isSpace := range []func(rune) bool{isECMAScriptSpace, unicode.IsSpace, func(r rune) bool { return r == ' ' }} {
		g := ref
		g.isSpace = isSpace
		for _, n := range []int{1, indexFrom, len(texts)} {
			x := newTextIndex(texts[:n], isSpace)
			if (x.byFirst != nil) != (n >= indexFrom) {
				t.Fatalf("%d texts: grouped %v", n, x.byFirst != nil)
			}
			for _, c := range rules {
				r := g.prepareRule(c)
				if got, want := x.some(r), some(texts[:n], r.matches); got != want {
					t.Errorf("rule %q over %d texts: index %v, all %v", c, n, got, want)
				}
			}
		}
	}
}
