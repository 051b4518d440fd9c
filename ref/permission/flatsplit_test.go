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
		"#", "中", "é", "if", "then", "nohup", "env", "sudo", "rm", "x=1", "/bin/", "-c", "--",
		// The word checks each path makes its own way (word, flatWord)
		// and what reads word values (builtin, inner).
		"~", "~x", "a~", "'`'", "'*'", "'$x'", "'a[1]'", `"a[1]"`, "printf", "-v", "command", "builtin",
		"read", "test", "git", "--output=f", "--out", "sh", "/dev/stdin", "find", "-exec", "nice", "-5",
		"timeout", "5", "setarch", "x86_64", `"\$"`, "\"\\`\"", `\$`, "\\`", `\-`, `'-'`, "中\\", "ls中'"}
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
		if flatAgrees(t, c) {
			answered++
		}
	}
	if answered < 10_000 {
		t.Fatalf("only %d commands went the flat way", answered)
	}
	t.Logf("%d of %d commands went the flat way", answered, len(commands))
}

// FuzzFlatSegments fuzzes the flat way against the parser's, as
// TestFlatSegments does.
func FuzzFlatSegments(f *testing.F) {
	seedCommands(f)
	f.Fuzz(func(t *testing.T, command string) { flatAgrees(t, command) })
}

// flatAgrees reports whether c goes the flat way, and if it does, checks
// that the parser builds the same simple commands of the same words and
// that classifying it through either way agrees.
func flatAgrees(t *testing.T, c string) bool {
	t.Helper()
	if _, _, bad := scanText(c); bad || flatStop(c) != "" || !flatSplit(c, nil, nil) {
		return false
	}
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
		return s.result()
	}()
	got := Classify(c)
	if got.Unknown != viaParser.Unknown || fmt.Sprint(got.Segments, got.Inner, got.rawInner, got.innerSegment) !=
		fmt.Sprint(viaParser.Segments, viaParser.Inner, viaParser.rawInner, viaParser.innerSegment) ||
		class(got.Reason) != class(viaParser.Reason) {
		t.Fatalf("%q: flat %+v, parser %+v", c, got, viaParser)
	}
	return true
}

func class(reason string) string {
	c, _, _ := strings.Cut(reason, ":")
	return c
}

// sameCalls compares the simple commands flatSplit finds in c, and the
// words it cuts them into, with the parser's: the same spans, and
// for each word the same source text at the same offset.
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
	i := 0
	var mismatch error
	var words []rawWord
	flatSplit(c, &words, func(n int) bool {
		if n != len(words) {
			mismatch = fmt.Errorf("simple command %d: %d words, flatSplit counts %d", i, len(words), n)
			return false
		}
		if i >= len(want) {
			mismatch = fmt.Errorf("more simple commands than the parser's %d", len(want))
			return false
		}
		if got, w := dumpFlat(words), dump(c, want[i]); got != w {
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

// dump renders the span and words of a parsed simple command, as the
// segmenter reads them (rawWord).
func dump(src string, c *syntax.CallExpr) string {
	var b strings.Builder
	fmt.Fprintf(&b, "assigns %d [%d,%d)", len(c.Assigns), c.Pos().Offset(), c.End().Offset())
	for _, w := range c.Args {
		fmt.Fprintf(&b, " %d:%q", w.Pos().Offset(), src[w.Pos().Offset():w.End().Offset()])
	}
	return b.String()
}

// dumpFlat renders a flat simple command's words as dump does.
func dumpFlat(words []rawWord) string {
	var b strings.Builder
	last := words[len(words)-1]
	fmt.Fprintf(&b, "assigns 0 [%d,%d)", words[0].start, last.start+len(last.text))
	for _, w := range words {
		fmt.Fprintf(&b, " %d:%q", w.start, w.text)
	}
	return b.String()
}
