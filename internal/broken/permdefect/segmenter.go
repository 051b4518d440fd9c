package permdefect

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/apexcheck/apexcheck/ref/permission"
)

// The segmenter's defects below each leave out one check of PERM-19 to
// PERM-29 and PERM-44 to PERM-48: where the reference refuses a command for
// that check alone, the defect reads it as the simple commands of its
// parse, which is what a segmenter that walks the syntax tree and forgets
// the check reports. Every other verdict is the reference's.

// UnicodeBlanksClassify refuses control characters (category Cc) but lets
// format characters and Unicode spaces through, as a port checking
// `\p{Cc}` alone does (PERM-19): `ls\u00a0-la` is one word to bash and
// `ls -la` to a rule.
var UnicodeBlanksClassify = reparsedWhen(reasonIn(permission.ReasonFormat, permission.ReasonSpace))

// ContinuationClassifies lets a backslash-newline through to the parser
// (PERM-20), which splices `r\`+LF+`m` into rm for bash while the segment
// keeps the text.
var ContinuationClassifies = reparsedWhen(reasonIn(permission.ReasonContinuation))

// RedirectionsClassify takes the simple commands of the parse without
// looking at their redirections (PERM-23), so `git log > README.md` rides
// on an allow rule `git log:*`.
var RedirectionsClassify = reparsedWhen(reasonIn(permission.ReasonRedirection))

// CompoundsWalked collects the simple commands wherever the syntax tree
// holds them, inside `if`, `for`, `{ … }`, subshells, functions, `!`,
// `time` and `coproc` (PERM-24), so that `! rm x` has the segment `rm x`
// and `if true; then rm x; fi` the segments `true` and `rm x`.
var CompoundsWalked = reparsedWhen(reasonIn(permission.ReasonNegation, permission.ReasonTime,
	permission.ReasonCoproc, permission.ReasonCompound, permission.ReasonFunction, permission.ReasonReserved))

// AssignmentsClassify keeps assignments before the command word in the
// segment (PERM-25), so `FOO=1 rm x` is a segment no deny rule `rm:*`
// matches.
var AssignmentsClassify = reparsedWhen(reasonIn(permission.ReasonAssignment))

// DeclarationsClassify treats `declare`, `export`, `local`, `readonly`,
// `typeset` and `let` as ordinary commands (PERM-26).
var DeclarationsClassify = reparsedWhen(reasonIn(permission.ReasonDeclaration))

// QuotedCommandWordClassifies accepts a quoted or escaped command word
// (PERM-27), so `'rm' -rf x` and `r\m -rf x` escape a deny rule `rm:*`.
var QuotedCommandWordClassifies = reparsedWhen(reasonIn(permission.ReasonCommandWord))

// ExpansionsClassify lets `$` and backticks through (PERM-28), so the
// command a `$(…)` runs is part of an argument no rule sees.
var ExpansionsClassify = reparsedWhen(reasonIn(permission.ReasonExpansion))

// GlobsClassify lets pathname, brace and tilde expansion through
// (PERM-29).
var GlobsClassify = reparsedWhen(reasonIn(permission.ReasonGlob, permission.ReasonTilde))

// EvaluatingBuiltinsClassify treats `read`, `mapfile`, `getopts`,
// `compgen`, `printf -v`, `test -v` and the like as ordinary commands
// (PERM-44).
var EvaluatingBuiltinsClassify = reparsedWhen(reasonIn(permission.ReasonEvaluation))

// LookupBuiltinsClassify treats `alias`, `hash` and `enable` as ordinary
// commands (PERM-45).
var LookupBuiltinsClassify = reparsedWhen(reasonIn(permission.ReasonLookup))

// BuiltinNameUnfollowed checks PERM-26, PERM-44 and PERM-45 against the
// command word only, not against the builtin `builtin` and `command` run
// (PERM-46), so `command printf -v …` and `builtin declare …` classify.
func BuiltinNameUnfollowed(command string) permission.Classification {
	c := permission.Classify(command)
	if !reasonIn(permission.ReasonDeclaration, permission.ReasonEvaluation, permission.ReasonLookup)(c, nil) {
		return c
	}
	if renamed, ok := renameBuiltinRunners(command); !ok || permission.Classify(renamed).Unknown {
		return c
	}
	return reparsed(command)
}

// reparsed is the command read as the simple commands of its parse.
var reparsed = reparsedWhen(func(permission.Classification, []string) bool { return true })

// renameBuiltinRunners returns command with every command word `builtin`
// or `command` renamed to a program of no meaning, and whether there was
// one.
func renameBuiltinRunners(command string) (string, bool) {
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return command, false
	}
	var at []int
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
			if w := ce.Args[0].Lit(); w == "builtin" || w == "command" {
				at = append(at, int(ce.Args[0].Pos().Offset()))
			}
		}
		return true
	})
	b := []byte(command)
	for _, i := range at {
		b[i] = 'X' // `Xuiltin`, `Xommand`: literal, and no builtin
	}
	return string(b), len(at) > 0
}

// BlankClassifies reports a blank command as the one segment it is, as a
// split that drops nothing does (PERM-31): `   ` is the segment `   `.
func BlankClassifies(command string) permission.Classification {
	c := permission.Classify(command)
	if command == "" || !strings.HasPrefix(c.Reason, permission.ReasonEmpty+":") {
		return c
	}
	return permission.Classification{Segments: []string{command}}
}

// PipelineAsOneSegment splits a command on `;`, `&`, `&&`, `||` and LF
// but keeps a pipeline whole, as a port that reads `|` as part of a
// command does (PERM-32): `ls | rm x` is one segment, which an allow rule
// `ls:*` matches while bash runs rm.
func PipelineAsOneSegment(command string) permission.Classification {
	c := permission.Classify(command)
	if c.Unknown {
		return c
	}
	f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
	if err != nil {
		return c
	}
	var segs []string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryCmd:
			if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
				segs = append(segs, command[n.Pos().Offset():n.End().Offset()])
				return false
			}
		case *syntax.CallExpr:
			segs = append(segs, command[n.Pos().Offset():n.End().Offset()])
			return false
		}
		return true
	})
	return permission.Classification{Segments: segs, Inner: c.Inner}
}

// ParseErrorsSplit has no bash parser: where the reference finds a syntax
// error, it splits the command as apex-code's published tokenizer does,
// on `;`, `&`, `|` and LF outside quotes, refusing only an unterminated
// quote (PERM-21), so `ls )` and `;; rm x` classify.
func ParseErrorsSplit(command string) permission.Classification {
	c := permission.Classify(command)
	if !strings.HasPrefix(c.Reason, permission.ReasonParse+":") {
		return c
	}
	if segs, ok := tokenize(command); ok {
		return permission.Classification{Segments: segs}
	}
	return c
}

// PublishedTokenizer classifies every command that apex-code's published
// tokenizer accepts as that tokenizer splits it, instead of by this
// grammar (PERM-33): where the grammar refuses a command for a reason the
// tokenizer does not know (a parse error, a comment, `!`, `time`,
// `coproc`, a reserved word, an assignment, a declaration builtin, a
// quoted command word), the tokenizer's segments stand.
func PublishedTokenizer(command string) permission.Classification {
	c := permission.Classify(command)
	if !reasonIn(permission.ReasonParse, permission.ReasonComment, permission.ReasonNegation,
		permission.ReasonTime, permission.ReasonCoproc, permission.ReasonReserved,
		permission.ReasonAssignment, permission.ReasonDeclaration, permission.ReasonCommandWord)(c, nil) {
		return c
	}
	if segs, ok := tokenize(command); ok {
		return permission.Classification{Segments: segs}
	}
	return c
}

// tokenize splits command on `;`, `&`, `|` and LF outside quotes and
// after no backslash, as apex-code's tokenizer does; it refuses an
// unterminated quote, `$` or a backtick outside single quotes, and `(`,
// `)`, `<` or `>` outside quotes.
func tokenize(command string) ([]string, bool) {
	var segs []string
	start := 0
	var quote byte
	cut := func(i int) {
		if s := strings.TrimSpace(command[start:i]); s != "" {
			segs = append(segs, s)
		}
		start = i + 1
	}
	for i := 0; i < len(command); i++ {
		b := command[i]
		switch {
		case quote == '\'':
			if b == '\'' {
				quote = 0
			}
		case b == '\\':
			i++
		case b == '$' || b == '`':
			return nil, false
		case quote == '"':
			if b == '"' {
				quote = 0
			}
		case b == '\'' || b == '"':
			quote = b
		case strings.IndexByte("()<>", b) >= 0:
			return nil, false
		case strings.IndexByte(";&|\n", b) >= 0:
			cut(i)
		}
	}
	if quote != 0 {
		return nil, false
	}
	cut(len(command))
	return segs, len(segs) > 0
}

// WrapperOptionsUnread reads a wrapper's arguments as flags that take no
// argument and its operands as the program (PERM-48): the program behind
// `nice -n 5 rm x` is `5`, and behind `timeout 5 rm x` too, so a deny rule
// `rm:*` no longer sees rm.
func WrapperOptionsUnread(command string) permission.Classification {
	c := permission.Classify(command)
	if c.Unknown {
		return c
	}
	var inner []string
	for _, s := range c.Segments {
		inner = append(inner, naiveInner(s)...)
	}
	return permission.Classification{Segments: c.Segments, Inner: inner}
}

var wrappers = strings.Fields(`env command builtin exec nice nohup timeout stdbuf setsid time ionice taskset
	prlimit choom uclampset setarch uname26 linux32 linux64 i386 i486 i586 i686 athlon x86_64`)

// naiveInner is the inner commands of segment, found by skipping every
// word that starts with `-` (and for env every word with `=`) after a
// wrapper and taking the next word as its program.
func naiveInner(segment string) []string {
	var inner []string
	words := wordsAt(segment)
	for i := 0; i < len(words); {
		w := segment[words[i][0]:words[i][1]]
		if j := strings.LastIndexByte(w, '/'); j >= 0 && j < len(w)-1 {
			inner = append(inner, segment[words[i][0]+j+1:])
		}
		name := w[strings.LastIndexByte(w, '/')+1:]
		if !slices.Contains(wrappers, name) {
			break
		}
		i++
		for i < len(words) {
			a := segment[words[i][0]:words[i][1]]
			if !strings.HasPrefix(a, "-") && !(name == "env" && strings.Contains(a, "=")) {
				break
			}
			i++
		}
		if i < len(words) {
			inner = append(inner, segment[words[i][0]:])
		}
	}
	return inner
}

// wordsAt returns the start and end of each blank-separated word of s.
func wordsAt(s string) [][2]int {
	var at [][2]int
	start := -1
	for i := 0; i <= len(s); i++ {
		blank := i == len(s) || s[i] == ' ' || s[i] == '\t'
		switch {
		case blank && start >= 0:
			at = append(at, [2]int{start, i})
			start = -1
		case !blank && start < 0:
			start = i
		}
	}
	return at
}

// reasonIn picks the reference verdicts of the given classes.
func reasonIn(classes ...string) func(permission.Classification, []string) bool {
	return func(c permission.Classification, _ []string) bool {
		class, _, _ := strings.Cut(c.Reason, ":")
		return c.Unknown && slices.Contains(classes, class)
	}
}

// BackgroundNotSplit splits a command on `;`, `&&`, `||`, `|` and LF but
// not on a lone `&`, as a regular expression written for the operators
// between commands (`&&|\|\||;|\|`) forgets the one that runs the command
// before it in the background (PERM-22): `ls & rm x` is one segment, which
// an allow rule `ls:*` matches.
func BackgroundNotSplit(command string) permission.Classification {
	c := permission.Classify(command)
	if c.Unknown {
		return c
	}
	var segs []string
	start, end := 0, 0 // where the last segment starts and ends in command
	for _, s := range c.Segments {
		i := end + strings.Index(command[end:], s)
		if len(segs) > 0 && strings.TrimSpace(command[end:i]) == "&" {
			segs[len(segs)-1] = command[start : i+len(s)]
		} else {
			segs = append(segs, s)
			start = i
		}
		end = i + len(s)
	}
	return permission.Classification{Segments: segs, Inner: c.Inner}
}
