package permission

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

// oracle is the soundness check of PERM-32, written independently of the
// segmenter: it parses the command afresh, walks the whole syntax tree with
// syntax.Walk, and requires that the only nodes are the plumbing of simple
// commands joined by list and pipeline operators, and that the simple
// commands it finds are exactly the segments, in order, each starting with
// its command word. It also checks the text for the two inputs mvdan.cc/sh
// is known to misread, since a walk of a wrong tree proves nothing.
func oracle(command string, c Classification) error {
	if c.Unknown {
		if c.Segments != nil {
			return fmt.Errorf("unknown with segments %q", c.Segments)
		}
		if c.Reason == "" {
			return fmt.Errorf("unknown without a reason")
		}
		return nil
	}
	if len(c.Segments) == 0 {
		return fmt.Errorf("classified as segments, but there are none")
	}
	if !utf8.ValidString(command) || strings.ContainsRune(command, '\r') || strings.Contains(command, "\\\n") {
		return fmt.Errorf("classified text mvdan.cc/sh cannot be trusted with")
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).
		Parse(strings.NewReader(command), "")
	if err != nil {
		return fmt.Errorf("classified a command that does not parse: %v", err)
	}
	// PERM-50, PERM-51: what bash reads in the other locales.
	if err := localeOracle(command, f); err != nil {
		return err
	}
	var calls []*syntax.CallExpr
	var bad []string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case nil, *syntax.File, *syntax.Word, *syntax.Lit, *syntax.SglQuoted:
		case *syntax.Stmt:
			if n.Negated || len(n.Redirs) > 0 || n.Coprocess || n.Disown {
				bad = append(bad, "statement with !, redirection or coprocess")
			}
		case *syntax.BinaryCmd:
			switch n.Op {
			case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			default:
				bad = append(bad, "operator "+n.Op.String())
			}
		case *syntax.DblQuoted:
			for _, p := range n.Parts {
				if _, ok := p.(*syntax.Lit); !ok {
					bad = append(bad, fmt.Sprintf("%T in double quotes", p))
				}
			}
		case *syntax.CallExpr:
			calls = append(calls, n)
		default:
			bad = append(bad, fmt.Sprintf("%T", n))
		}
		return true
	})
	if len(bad) > 0 {
		return fmt.Errorf("segments, but the tree holds %v", bad)
	}
	if len(calls) != len(c.Segments) {
		return fmt.Errorf("%d simple commands in the tree, %d segments", len(calls), len(c.Segments))
	}
	var inner []string
	for i, ce := range calls {
		if len(ce.Assigns) > 0 || len(ce.Args) == 0 {
			return fmt.Errorf("simple command %d has assignments or no words", i)
		}
		text := command[ce.Pos().Offset():ce.End().Offset()]
		if text != c.Segments[i] {
			return fmt.Errorf("simple command %d is %q, segment is %q", i, text, c.Segments[i])
		}
		word := ce.Args[0].Lit()
		if word == "" || !strings.HasPrefix(c.Segments[i], word) {
			return fmt.Errorf("segment %q does not start with its command word %q", c.Segments[i], word)
		}
		// The command word bash runs is the literal as written: no quote,
		// escape, expansion or reserved word can sit in it.
		if strings.ContainsAny(word, "\\'\"$`*?[]{}") || strings.HasPrefix(word, "~") ||
			syntax.IsKeyword(word) || declarationBuiltins[word] {
			return fmt.Errorf("segment %q has command word %q", c.Segments[i], word)
		}
		if err := oracleBuiltin(ce.Args); err != nil {
			return fmt.Errorf("segment %q: %v", c.Segments[i], err)
		}
		values := make([]string, len(ce.Args))
		for j, w := range ce.Args {
			f, err := expand.Fields(nil, w)
			if err != nil || len(f) != 1 {
				return fmt.Errorf("segment %q: word %d expands to %q (%v)", c.Segments[i], j, f, err)
			}
			values[j] = f[0]
		}
		in, err := oracleInner(command, ce, values)
		if err != nil {
			return fmt.Errorf("segment %q: %v", c.Segments[i], err)
		}
		inner = append(inner, in...)
	}
	// PERM-47: the inner commands are exactly the programs the wrappers
	// run, so that whatever bash runs is named where a deny rule looks.
	if !slices.Equal(inner, c.Inner) {
		return fmt.Errorf("inner commands %q, the oracle finds %q", c.Inner, inner)
	}
	return nil
}

// oracleBuiltin checks PERM-26 and PERM-44 to PERM-46 the way bash sees the
// words: their values after mvdan.cc/sh's own quote removal, and the
// builtin bash runs behind any number of `builtin` and `command` prefixes,
// whose options bash reads up to the first word not starting with `-` or
// just after `--`.
func oracleBuiltin(words []*syntax.Word) error {
	values := make([]string, len(words))
	for i, w := range words {
		f, err := expand.Fields(nil, w)
		if err != nil || len(f) != 1 {
			return fmt.Errorf("word %d expands to %q (%v)", i, f, err)
		}
		values[i] = f[0]
	}
	name, args := values[0], values[1:]
	for name == "builtin" || name == "command" {
		i := 0
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			i++
			if args[i-1] == "--" {
				break
			}
		}
		if i == len(args) {
			return nil
		}
		name, args = args[i], args[i+1:]
	}
	bracket := slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "[") })
	switch {
	case slices.Contains([]string{"declare", "export", "local", "readonly", "typeset", "nameref", "let"}, name),
		slices.Contains([]string{"read", "mapfile", "readarray", "getopts", "compgen", "alias", "hash", "enable"}, name),
		name == "printf" && len(args) > 0 && strings.HasPrefix(args[0], "-"),
		slices.Contains([]string{"test", "[", "unset", "wait"}, name) && bracket:
		return fmt.Errorf("runs builtin %s with arguments %q", name, args)
	}
	return nil
}

func TestOracleCorpus(t *testing.T) {
	for i, e := range load[commandEntry](t, "commands.json") {
		if err := oracle(e.Command, Classify(e.Command)); err != nil {
			t.Errorf("commands[%d] %q: %v", i, e.Command, err)
		}
	}
}

// TestOracleCatchesOverClaims makes sure the oracle can fail: each of these
// hand-made classifications claims segments the tree does not support.
func TestOracleCatchesOverClaims(t *testing.T) {
	claims := []struct {
		command  string
		segments []string
	}{
		{"ls > out", []string{"ls"}},
		{"echo $(rm x)", []string{"echo $(rm x)"}},
		{"ls && rm x", []string{"ls"}},
		{"echo 'a;b'", []string{"echo 'a", "b'"}},
		{"FOO=1 rm x", []string{"rm x"}},
		{"'rm' x", []string{"'rm' x"}},
		{"{ ls; }", []string{"ls"}},
		{"ls\r", []string{"ls"}},
		{"echo \"$\\\n(id)\"", []string{"echo \"$\\\n(id)\""}},
		{"printf -v 'a[$(id)]' x", []string{"printf -v 'a[$(id)]' x"}},
		{"command -p \\read x", []string{"command -p \\read x"}},
		{"builtin -- test -v 'a[$(id)]'", []string{"builtin -- test -v 'a[$(id)]'"}},
		{"alias ls=rm", []string{"alias ls=rm"}},
		{"sh -c 'rm x'", []string{"sh -c 'rm x'"}},
		{"curl x | sh", []string{"curl x", "sh"}},
		{"env -S 'rm x'", []string{"env -S 'rm x'"}},
		{"nice --adj=3 rm", []string{"nice --adj=3 rm"}},
		{"find . -ok rm '{}' ';'", []string{"find . -ok rm '{}' ';'"}},
		{"command eval x", []string{"command eval x"}},
		// Bytes other locales read differently (PERM-50, PERM-51).
		{"ls 中\\; rm x", []string{"ls 中\\; rm x"}},
		{"echo '中1'", []string{"echo '中1'"}},
		{"echo \U000203a1\"\nrm x\n\"", []string{"echo \U000203a1\"\nrm x\n\""}},
		{"ª=1 rm x", []string{"ª=1 rm x"}},
		// Inner commands missing, or not the program the wrapper runs.
		{"nohup rm x", []string{"nohup rm x"}},
		{"/bin/rm x", []string{"/bin/rm x"}},
	}
	for _, c := range claims {
		if oracle(c.command, Classification{Segments: c.segments}) == nil {
			t.Errorf("oracle accepts segments %q for %q", c.segments, c.command)
		}
	}
	wrong := []struct {
		command string
		inner   []string
	}{
		{"timeout 5 rm x", []string{"5 rm x"}},
		{"nice -n 5 rm x", []string{"5 rm x"}},
		{"env -u X rm x", []string{"X rm x"}},
		{"env A=1 rm x", []string{"A=1 rm x"}},
		{"command -v rm", []string{"rm"}},
		{"nice -n5 nohup rm x", []string{"rm x"}},
		{"echo rm x", []string{"rm x"}},
	}
	for _, c := range wrong {
		if oracle(c.command, Classification{Segments: []string{c.command}, Inner: c.inner}) == nil {
			t.Errorf("oracle accepts inner commands %q for %q", c.inner, c.command)
		}
	}
}

// allowProbes are allow-rule contents an attacker would hope to match an
// unknown command with: its own text, its normalised text, word prefixes,
// the degenerate rules, and the reserved rule.
func allowProbes(command string) []*string {
	probes := []string{command, Normalize(command), "", ":*", " :*", BackgroundHandleRule}
	words := strings.Fields(command)
	for i := 1; i <= len(words) && i <= 3; i++ {
		probes = append(probes, strings.Join(words[:i], " ")+":*")
	}
	out := []*string{nil} // the tool-wide rule
	for i := range probes {
		out = append(out, &probes[i])
	}
	return out
}

// checkInvariants asserts, for one command, the properties the fuzzers
// share: the oracle, and that an unknown call is never authorised by any
// allow rule and is denied by any deny rule (PERM-39).
func checkInvariants(t *testing.T, command string) {
	c := Classify(command)
	if err := oracle(command, c); err != nil {
		t.Fatalf("%q: %v", command, err)
	}
	raw, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	p := call.Parse(raw)
	if !IsUnknown(p) {
		return
	}
	for _, content := range allowProbes(command) {
		for _, source := range []string{"policy", "session"} {
			rules := []protocol.Rule{{Source: source, Behavior: Allow, Content: content}}
			if d, _ := Decide(rules, p); d == Allow {
				t.Fatalf("%q is unknown, yet allow rule %s authorises it", command, ruleString(&rules[0]))
			}
			if content != nil && Matches(*content, p) {
				t.Fatalf("%q is unknown, yet Matches(%q) holds", command, *content)
			}
			rules[0].Behavior = Deny
			if d, _ := Decide(rules, p); d != Deny {
				t.Fatalf("%q is unknown, yet deny rule %s decides %s", command, ruleString(&rules[0]), d)
			}
		}
	}
}

func seedCommands(f *testing.F) {
	for _, e := range load[commandEntry](f, "commands.json") {
		f.Add(e.Command)
	}
	for _, e := range load[ruleEntry](f, "rules.json") {
		f.Add(e.Segment)
	}
	for _, c := range localeCommands() {
		f.Add(c)
	}
}

// FuzzClassify fuzzes the segmenter: nothing panics, the oracle holds for
// every classification, and unknown commands escape no allow rule.
func FuzzClassify(f *testing.F) {
	seedCommands(f)
	f.Fuzz(func(t *testing.T, command string) {
		checkInvariants(t, command)
	})
}

// FuzzMatch fuzzes the rule matcher against the segmenter: nothing panics;
// the matcher agrees with the JavaScript-semantics model of the seed
// (jsSegmentMatchesRule, in UTF-16 code units); a single-segment command is
// matched exactly as its segment, by a deny rule as its segment or one of
// its inner commands; and the unknown-call invariants hold.
func FuzzMatch(f *testing.F) {
	for _, e := range load[ruleEntry](f, "rules.json") {
		f.Add(e.Segment, e.Rule)
	}
	f.Fuzz(func(t *testing.T, segment, rule string) {
		got := SegmentMatchesRule(segment, rule)
		if utf8.ValidString(segment) && utf8.ValidString(rule) {
			if want := jsSegmentMatchesRule(segment, rule); got != want {
				t.Fatalf("SegmentMatchesRule(%q, %q) = %v, JavaScript model says %v", segment, rule, got, want)
			}
		}
		if n := Normalize(rule); Normalize(n) != n {
			t.Fatalf("Normalize is not idempotent on %q", rule)
		}
		raw, err := json.Marshal(map[string]string{"command": segment})
		if err != nil {
			t.Fatal(err)
		}
		p := call.Parse(raw)
		if c := Classify(segment); !c.Unknown && len(c.Segments) == 1 && c.Segments[0] == segment {
			// A deny rule also sees the segment's inner commands (PERM-47).
			deny := got
			for _, in := range c.Inner {
				deny = deny || SegmentMatchesRule(in, rule)
			}
			if Matches(rule, p) != got || MatchesDeny(rule, p) != deny {
				t.Fatalf("single segment %q (inner %q): Matches/MatchesDeny disagree with SegmentMatchesRule for %q", segment, c.Inner, rule)
			}
		}
		if IsUnknown(p) {
			if Matches(rule, p) {
				t.Fatalf("unknown %q matched by allow rule %q", segment, rule)
			}
			rules := []protocol.Rule{{Source: "policy", Behavior: Allow, Content: &rule}}
			if d, _ := Decide(rules, p); d == Allow {
				t.Fatalf("unknown %q authorised by allow rule %q", segment, rule)
			}
		}
	})
}
