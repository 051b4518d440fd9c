package permission

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"mvdan.cc/sh/v3/syntax"
)

// The broken variants below are the mistakes the issue names. Each is a
// small alternative to one piece of the reference grammar; the corpus must
// reject every one of them, or it is not testing what it claims to.

// splitIgnoringQuotes splits on the list and pipeline operators without
// regard to quoting: what a regular-expression splitter does.
var operatorRE = regexp.MustCompile(`\|\||&&|\|&|[;&|\n]`)

func splitIgnoringQuotes(command string) Classification {
	var segs []string
	for _, s := range operatorRE.Split(command, -1) {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 {
		return Classification{Unknown: true, Reason: ReasonEmpty + ": none"}
	}
	// Keep the reference's verdict on everything but the split, so the
	// mutant differs in one respect only.
	if c := classify(command); c.Unknown {
		return c
	}
	return Classification{Segments: segs}
}

// goRegexpSpace is Go's regexp \s: ASCII only, and without VT.
func goRegexpSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// unknownAsEmpty reports an unknown command as an empty segment list, which
// "every segment matches" then vacuously accepts.
func unknownAsEmpty(command string) Classification {
	if c := classify(command); !c.Unknown {
		return c
	}
	return Classification{Segments: []string{}}
}

// runsTextAsSegments classifies a command PERM-49 makes unknown as the
// simple commands a quote-aware split finds, as the grammar did before
// PERM-49: `sh -c 'rm x'` is one segment whose command word is sh.
func runsTextAsSegments(command string) Classification {
	c := classify(command)
	if !strings.HasPrefix(c.Reason, ReasonRunsText+":") {
		return c
	}
	f, err := parse(command)
	if err != nil {
		return c
	}
	var segs []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok {
			segs = append(segs, command[ce.Pos().Offset():ce.End().Offset()])
			return false
		}
		return true
	})
	if len(segs) == 0 {
		return c
	}
	return Classification{Segments: segs}
}

// stripWrappers reports each segment as the innermost command it runs, so
// that allow rules see through wrappers too.
func stripWrappers(command string) Classification {
	c := classify(command)
	for i, s := range c.Segments {
		for _, in := range c.Inner {
			if strings.HasSuffix(s, in) && len(in) < len(c.Segments[i]) {
				c.Segments[i] = in
			}
		}
	}
	return c
}

// with is the reference grammar with one piece replaced.
func with(change func(*grammar)) grammar {
	g := ref
	change(&g)
	return g
}

func TestCorpusCatchesBrokenVariants(t *testing.T) {
	commands := load[commandEntry](t, "commands.json")
	rules := load[ruleEntry](t, "rules.json")
	engine := load[engineEntry](t, "engine.json")

	mutants := []struct {
		name string
		g    grammar
	}{
		{"split ignoring quotes", with(func(g *grammar) { g.classify = splitIgnoringQuotes })},
		{"Go regexp \\s instead of ECMAScript's", with(func(g *grammar) { g.isSpace = goRegexpSpace })},
		{"unicode.IsSpace instead of ECMAScript's", with(func(g *grammar) { g.isSpace = unicode.IsSpace })},
		{"deny matched with every", with(func(g *grammar) { g.denyQuantifier = every })},
		{"unknown treated as no segments", with(func(g *grammar) { g.classify = unknownAsEmpty })},
		{"deny blind to wrappers", with(func(g *grammar) { g.denyTexts = segmentTexts })},
		{"text runners classify", with(func(g *grammar) { g.classify = runsTextAsSegments })},
		{"wrappers stripped from segments", with(func(g *grammar) { g.classify = stripWrappers })},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			byFile := map[string]int{
				"commands.json": len(commandFailures(m.g, commands)),
				"rules.json":    len(ruleFailures(m.g, rules)),
				"engine.json":   len(engineFailures(m.g, engine)),
			}
			total := 0
			for _, n := range byFile {
				total += n
			}
			if total == 0 {
				t.Fatalf("the corpus does not catch %q", m.name)
			}
			t.Logf("caught by %v", byFile)
		})
	}
}

// TestReferenceIsNotAMutant guards the mutation test itself: the reference
// must pass where every mutant fails, or the mutants prove nothing.
func TestReferenceIsNotAMutant(t *testing.T) {
	commands := load[commandEntry](t, "commands.json")
	rules := load[ruleEntry](t, "rules.json")
	engine := load[engineEntry](t, "engine.json")
	if n := len(commandFailures(ref, commands)) + len(ruleFailures(ref, rules)) + len(engineFailures(ref, engine)); n != 0 {
		t.Fatalf("the reference fails %d corpus entries", n)
	}
}
