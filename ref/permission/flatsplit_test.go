package permission

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// TestFlatSegments checks flatSegments against the parser it stands in
// for: on every command it answers for (the corpus's, and random commands
// built from the bytes the flat grammar treats specially), the parser
// must accept the command and build the same simple commands, word for
// word, part for part and offset for offset, and classification through
// either path must agree.
func TestFlatSegments(t *testing.T) {
	var commands []string
	for _, e := range load[commandEntry](t, "commands.json") {
		commands = append(commands, e.Command)
	}
	atoms := []string{"ls", "a", "-x", " ", " ", "\t", "\n", ";", "&", "|", "&&", "||", "|&", ";;",
		"'", "'b c'", `"`, `"d e"`, `""`, "''", `\`, `\ `, `\'`, `\"`, `"\""`, `"\\"`, "=", "!", "~",
		"#", "中", "é", "if", "then", "nohup", "env", "sudo", "rm", "x=1", "/bin/", "-c", "--"}
	rng := rand.New(rand.NewPCG(19, 53))
	for range 200_000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(atoms[rng.IntN(len(atoms))])
		}
		commands = append(commands, b.String())
	}
	answered := 0
	for _, c := range commands {
		if _, _, bad := scanText(c); bad || flatStop(c) != "" || !flatSplit(c, nil) {
			continue
		}
		answered++
		if err := sameCalls(c); err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		viaParser := func() Classification {
			hazards, _, _ := scanText(c)
			s := segmenter{src: c, hazards: hazards}
			if err := s.stream(); err != nil {
				return unknown(ReasonParse, err.Error())
			} else if s.failed {
				return s.fail
			}
			if len(s.hazards) > 0 {
				return unknown(ReasonLocale, "")
			}
			return Classification{Segments: s.segments, Inner: s.inners, rawInner: s.rawInner, innerSegment: s.innerSegment}
		}()
		got := Classify(c)
		if got.Unknown != viaParser.Unknown || fmt.Sprint(got.Segments, got.Inner, got.rawInner, got.innerSegment) !=
			fmt.Sprint(viaParser.Segments, viaParser.Inner, viaParser.rawInner, viaParser.innerSegment) ||
			class(got.Reason) != class(viaParser.Reason) {
			t.Fatalf("%q: flat %+v, parser %+v", c, got, viaParser)
		}
	}
	if answered < 10_000 {
		t.Fatalf("only %d commands went the flat way", answered)
	}
	t.Logf("%d of %d commands went the flat way", answered, len(commands))
}

func class(reason string) string {
	c, _, _ := strings.Cut(reason, ":")
	return c
}

// sameCalls compares the simple commands flatSplit finds in c with the
// parser's.
func sameCalls(c string) error {
	f, err := parse(c)
	if err != nil {
		return fmt.Errorf("the parser refuses it: %v", err)
	}
	var want []*syntax.CallExpr
	var bad string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			if n.Negated || len(n.Redirs) > 0 || n.Coprocess || n.Disown || len(n.Comments) > 0 {
				bad = "a statement the flat grammar has no words for"
			}
		case *syntax.CallExpr:
			want = append(want, n)
			return false
		case *syntax.BinaryCmd, *syntax.File, nil:
		default:
			bad = fmt.Sprintf("a %T", n)
		}
		return true
	})
	if bad != "" {
		return fmt.Errorf("the parser finds %s", bad)
	}
	var fw flatWords
	i := 0
	var mismatch error
	flatSplit(c, func(start, end int) bool {
		if i >= len(want) {
			mismatch = fmt.Errorf("more simple commands than the parser's %d", len(want))
			return false
		}
		if got, w := dump(fw.call(c, start, end)), dump(want[i]); got != w {
			mismatch = fmt.Errorf("simple command %d:\nflat   %s\nparser %s", i, got, w)
			return false
		}
		i++
		return true
	})
	if mismatch == nil && i != len(want) {
		mismatch = fmt.Errorf("%d simple commands, the parser %d", i, len(want))
	}
	return mismatch
}

// dump renders what the segmenter reads of a simple command.
func dump(c *syntax.CallExpr) string {
	var b strings.Builder
	fmt.Fprintf(&b, "assigns %d [%d,%d)", len(c.Assigns), c.Pos().Offset(), c.End().Offset())
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		fmt.Fprintf(&b, " %T[%d,%d)", p, p.Pos().Offset(), p.End().Offset())
		switch p := p.(type) {
		case *syntax.Lit:
			fmt.Fprintf(&b, "%q", p.Value)
		case *syntax.SglQuoted:
			fmt.Fprintf(&b, "%q%v", p.Value, p.Dollar)
		case *syntax.DblQuoted:
			fmt.Fprintf(&b, "%v{", p.Dollar)
			for _, in := range p.Parts {
				part(in)
			}
			b.WriteString("}")
		}
	}
	for _, w := range c.Args {
		fmt.Fprintf(&b, " | word[%d,%d)", w.Pos().Offset(), w.End().Offset())
		for _, p := range w.Parts {
			part(p)
		}
	}
	return b.String()
}
