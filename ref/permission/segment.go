package permission

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Classification is the segmenter's answer for one command string: either
// the simple commands bash would run (Segments, never empty), or Unknown.
type Classification struct {
	// Segments are the trimmed raw source texts of the command's simple
	// commands, in source order. Nil when Unknown.
	Segments []string
	// Inner are the commands the segments run behind a wrapper or a path
	// (PERM-47, PERM-48), in source order: each is the text from the
	// program word the wrapper runs (or from just after the last `/` of a
	// command word) to the end of its segment. Deny rules see them; allow
	// and ask rules do not. Nil when there are none.
	Inner []string
	// rawInner says for each inner command whether it is grammar-sensitive
	// (PERM-12), found from one pass over its segment; innerSegment is the
	// index in Segments of the segment it is a suffix of, which lets the
	// matcher skip the inner commands of a repeated segment without
	// hashing them (PERM-53).
	rawInner     []bool
	innerSegment []int
	// Unknown is set when the command could not be proved to be only simple
	// commands joined by list and pipeline operators (PERM-17).
	Unknown bool
	// Reason says why the command is unknown: a class name (one of the
	// Reason* constants), a colon, and detail. It is for tests and
	// debugging, not part of the wire protocol.
	Reason string
}

// Classes of unknown command, the prefix of Classification.Reason. Each names
// one condition of PERM-17 to PERM-31.
const (
	ReasonEmpty        = "empty"          // PERM-31: empty or blank input
	ReasonEncoding     = "encoding"       // PERM-18: not valid UTF-8
	ReasonControl      = "control"        // PERM-19: CR or another control character
	ReasonFormat       = "format"         // PERM-19: a Unicode format character
	ReasonSpace        = "space"          // PERM-19: a Unicode space other than SPACE, TAB, LF
	ReasonContinuation = "continuation"   // PERM-20: backslash-newline
	ReasonParse        = "parse"          // PERM-21: not valid bash
	ReasonStructure    = "structure"      // PERM-22: a list or pipeline operator outside the allowed set
	ReasonRedirection  = "redirection"    // PERM-23: a redirection or here-document
	ReasonComment      = "comment"        // PERM-23: a comment
	ReasonNegation     = "negation"       // PERM-24: `!`
	ReasonTime         = "time"           // PERM-24: `time`
	ReasonCoproc       = "coproc"         // PERM-24: `coproc`
	ReasonCompound     = "compound"       // PERM-24: a compound command
	ReasonFunction     = "function"       // PERM-24: a function definition
	ReasonReserved     = "reserved"       // PERM-24: a reserved word as the command word
	ReasonAssignment   = "assignment"     // PERM-25: a prefix or bare assignment
	ReasonDeclaration  = "declaration"    // PERM-26: a declaration builtin
	ReasonEvaluation   = "evaluation"     // PERM-44: a builtin that evaluates text it assigns
	ReasonLookup       = "lookup"         // PERM-45: a builtin that changes what a command word runs
	ReasonCommandWord  = "command-word"   // PERM-27: a quoted, escaped or non-literal command word
	ReasonExpansion    = "expansion"      // PERM-28: `$` outside single quotes, or a backtick
	ReasonGlob         = "glob"           // PERM-29: unquoted * ? [ ] { }
	ReasonTilde        = "tilde"          // PERM-29: unquoted leading ~
	ReasonRunsText     = "runs-text"      // PERM-49: a program or builtin that runs text as commands
	ReasonWrapper      = "wrapper-option" // PERM-48: a wrapper argument the grammar cannot read
	ReasonLocale       = "locale"         // PERM-50, PERM-51: bytes another locale reads differently
	ReasonNesting      = "nesting"        // PERM-52: a long command outside the flat subset, not parsed
	ReasonWrites       = "writes-file"    // PERM-58: an option that writes a file, such as git --output
)

// declarationBuiltins are the command words PERM-26 refuses: each evaluates
// array subscripts or arithmetic in its arguments, which runs `$(…)` hidden
// in single quotes.
var declarationBuiltins = map[string]bool{
	"declare": true, "export": true, "local": true, "readonly": true,
	"typeset": true, "nameref": true, "let": true,
}

// Classify decides whether command is only simple commands joined by list
// and pipeline operators, and if so returns their source texts (PERM-17).
// Anything it cannot prove is Unknown. There is no length cap (PERM-30).
func Classify(command string) Classification {
	return classify(command)
}

func unknown(class, detail string) Classification {
	return Classification{Unknown: true, Reason: class + ": " + detail}
}

func classify(command string) Classification {
	hazards, c, bad := scanText(command)
	if bad {
		return c
	}
	// PERM-52: a long command is parsed only once it is known to be flat,
	// so that no nesting depth reaches the parser's recursion.
	if len(command) > flatLimit {
		if why := flatStop(command); why != "" {
			return unknown(ReasonNesting, why)
		}
	}
	s := segmenter{src: command, hazards: hazards}
	s.takeScratch()
	defer s.putScratch()
	if strings.IndexByte(command, '#') >= 0 {
		// A comment can sit where no statement carries it (after the last
		// one, say), so a command that may hold one is parsed whole and
		// walked for comments.
		f, err := parse(command)
		if err != nil {
			return unknown(ReasonParse, err.Error())
		}
		if hasComment(f) {
			return unknown(ReasonComment, "a comment")
		}
		for _, st := range f.Stmts {
			if !s.stmt(st) {
				return s.fail
			}
		}
	} else if err := s.segment(); err != nil {
		return unknown(ReasonParse, err.Error())
	} else if s.failed {
		return s.fail
	}
	if len(s.hazards) > 0 {
		// PERM-50: a byte another locale may swallow, outside the single
		// quotes word() already excused.
		return unknown(ReasonLocale, "a byte a double-byte locale reads as part of a character")
	}
	if len(s.segments) == 0 {
		// Only blanks, which scanText already refused; kept so that an
		// empty list can never stand for "segments".
		return unknown(ReasonEmpty, "no command")
	}
	return s.result()
}

// result is the classification of a command the segmenter has accepted:
// its segments, and its inner commands, each allocated once at its size.
func (s *segmenter) result() Classification {
	c := Classification{Segments: s.segments}
	if n := len(s.inners); n > 0 {
		c.Inner, c.rawInner, c.innerSegment = make([]string, n), make([]bool, n), make([]int, n)
		for i, in := range s.inners {
			c.Inner[i], c.rawInner[i], c.innerSegment[i] = s.src[in.start:in.end], in.raw, in.segment
		}
	}
	return c
}

// segment segments a command with no `#`: the flat way when flatStop
// finds it flat and flatSegments answers for it, else by the parser. A
// command longer than flatLimit reaches here only flat (classify checked),
// so it is not scanned again.
func (s *segmenter) segment() error {
	if (len(s.src) > flatLimit || flatStop(s.src) == "") && s.flatSegments() {
		return nil
	}
	return s.stream()
}

// stream parses the command one top-level statement at a time and checks
// each as it arrives, so that a long list never holds its whole syntax tree
// in memory and a refused statement stops the parse. It calls the iterator
// function directly rather than ranging over it: mvdan.cc/sh's iterator
// yields a pending here-document error after the consumer has stopped,
// which a range loop turns into a panic.
func (s *segmenter) stream() error {
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	var perr error
	p.StmtsSeq(strings.NewReader(s.src))(func(st *syntax.Stmt, err error) bool {
		if s.failed {
			return false
		}
		if err != nil {
			perr = err
			return false
		}
		return s.stmt(st)
	})
	return perr
}

// scanText applies the text-level conditions PERM-18 to PERM-20 and PERM-31
// before any parser sees the command, because mvdan.cc/sh reads CR as a
// blank and mis-parses backslash-newline inside double quotes. It also
// returns, in increasing order, the offsets of the bytes PERM-50 is about:
// whether each one matters depends on whether it sits inside single
// quotes, which only the parse knows.
func scanText(command string) ([]int, Classification, bool) {
	blank := true
	var hazards []int
	for i := 0; i < len(command); {
		b := command[i]
		if b < utf8.RuneSelf {
			if i > 0 && (command[i-1] >= utf8.RuneSelf || i > 1 && command[i-2] >= utf8.RuneSelf) && localeHazard(command, i) {
				hazards = append(hazards, i)
			}
			switch {
			case b == ' ' || b == '\t' || b == '\n':
			case b < 0x20 || b == 0x7F:
				return nil, unknown(ReasonControl, "a control character"), true
			case b == '\\' && i+1 < len(command) && command[i+1] == '\n':
				return nil, unknown(ReasonContinuation, "a backslash-newline"), true
			default:
				blank = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(command[i:])
		if r == utf8.RuneError && n == 1 {
			return nil, unknown(ReasonEncoding, "invalid UTF-8"), true
		}
		switch {
		case unicode.Is(unicode.Cc, r):
			return nil, unknown(ReasonControl, "a control character"), true
		case unicode.Is(unicode.Cf, r):
			return nil, unknown(ReasonFormat, "a Unicode format character"), true
		case isUnicodeSpace(r):
			return nil, unknown(ReasonSpace, "a Unicode space"), true
		}
		blank = false
		i += n
	}
	if blank {
		return nil, unknown(ReasonEmpty, "empty or blank"), true
	}
	return hazards, Classification{}, false
}

// isUnicodeSpace reports whether r is a space to any of the layers a command
// passes through: Unicode's White_Space property and Z categories (Go's
// unicode.IsSpace and the Zs, Zl, Zp tables) and ECMAScript's set. Only the
// ASCII blanks bash itself splits on are allowed, and those are handled by
// the caller before this is reached.
func isUnicodeSpace(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp) || isECMAScriptSpace(r)
}

// scratch is what a segmenter works in and a classification does not
// keep: the words of the simple command being checked and the inner
// commands found so far. A 1 MiB command can have half a million words,
// and fresh lists for each classification, grown as they filled, were
// most of what a long chain of wrappers allocated, and so most of the
// garbage collector's work (PERM-53); scratchPool recycles them.
type scratch struct {
	words []rawWord
	// wordsUsed is the most words held: those past len(words) still
	// point into the command.
	wordsUsed int
	inners    []innerRef
}

// innerRef is one inner command (Classification.Inner) by its span in the
// command, its segment's index and whether it is grammar-sensitive.
type innerRef struct {
	start, end, segment int
	raw                 bool
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func (s *segmenter) takeScratch() {
	s.scratch = *scratchPool.Get().(*scratch)
}

// putScratch returns the segmenter's scratch to the pool, empty, with the
// words it held cleared: they point into the command, which the pool must
// not keep alive.
func (s *segmenter) putScratch() {
	clear(s.words[:s.wordsUsed])
	sc := &scratch{words: s.words[:0], inners: s.inners[:0]}
	s.scratch = scratch{}
	scratchPool.Put(sc)
}

// parserPool recycles parsers: building one allocates more than parsing a
// typical command does.
var parserPool = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
}}

func parse(command string) (*syntax.File, error) {
	p := parserPool.Get().(*syntax.Parser)
	defer parserPool.Put(p)
	return p.Parse(strings.NewReader(command), "")
}

func hasComment(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		if _, ok := n.(*syntax.Comment); ok {
			found = true
		}
		return !found
	})
	return found
}

// segmenter walks the statements of a parsed command, collecting the source
// text of each simple command, and stops at the first construct PERM-17
// does not allow.
type segmenter struct {
	src      string
	segments []string
	stack    []*syntax.Stmt
	scratch
	// hazards are the offsets of PERM-50's bytes not yet excused by a
	// single-quoted string around them, in increasing order.
	hazards []int
	failed  bool
	fail    Classification
}

func (s *segmenter) reject(class, detail string) bool {
	s.failed = true
	s.fail = unknown(class, detail)
	return false
}

// stmt checks one top-level statement. A long chain nests one BinaryCmd per
// operator, so the walk keeps its own stack instead of recursing: deep Go
// recursion would spend its time growing and copying the goroutine stack.
func (s *segmenter) stmt(top *syntax.Stmt) bool {
	s.stack = append(s.stack[:0], top)
	for len(s.stack) > 0 {
		st := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		switch {
		case len(st.Comments) > 0:
			return s.reject(ReasonComment, "a comment")
		case st.Negated:
			return s.reject(ReasonNegation, "a negated pipeline")
		case len(st.Redirs) > 0:
			return s.reject(ReasonRedirection, "a redirection")
		case st.Coprocess || st.Disown:
			return s.reject(ReasonStructure, "a non-bash operator")
		}
		switch cmd := st.Cmd.(type) {
		case *syntax.CallExpr:
			if !s.call(cmd) {
				return false
			}
		case *syntax.BinaryCmd:
			switch cmd.Op {
			case syntax.AndStmt, syntax.OrStmt, syntax.Pipe, syntax.PipeAll:
			default:
				return s.reject(ReasonStructure, "operator "+cmd.Op.String())
			}
			// Y is pushed first so that X, the earlier text, is visited
			// first and segments come out in source order.
			s.stack = append(s.stack, cmd.Y, cmd.X)
		case *syntax.TimeClause:
			return s.reject(ReasonTime, "time")
		case *syntax.CoprocClause:
			return s.reject(ReasonCoproc, "coproc")
		case *syntax.FuncDecl:
			return s.reject(ReasonFunction, "a function definition")
		case *syntax.DeclClause, *syntax.LetClause:
			return s.reject(ReasonDeclaration, "a declaration builtin")
		case nil:
			return s.reject(ReasonStructure, "a statement without a command")
		default:
			return s.reject(ReasonCompound, "a compound command")
		}
	}
	return true
}

// call checks a simple command the parser built: PERM-25 to PERM-29 on
// its nodes, then the checks every simple command shares (simple).
func (s *segmenter) call(c *syntax.CallExpr) bool {
	if len(c.Assigns) > 0 {
		return s.reject(ReasonAssignment, "an assignment")
	}
	if len(c.Args) == 0 {
		return s.reject(ReasonStructure, "a call without words")
	}
	// PERM-27: the command word is one unquoted, unescaped literal.
	head := c.Args[0]
	lit, ok := head.Parts[0].(*syntax.Lit)
	if len(head.Parts) != 1 || !ok {
		return s.reject(ReasonCommandWord, "a quoted or expanded command word")
	}
	if !s.commandWord(lit.Value) {
		return false
	}
	s.words = s.words[:0]
	for _, w := range c.Args {
		if !s.word(w) {
			return false
		}
		start := int(w.Pos().Offset())
		s.words = append(s.words, rawWord{text: s.src[start:w.End().Offset()], start: start})
	}
	s.wordsUsed = max(s.wordsUsed, len(s.words))
	return s.simple(lit.Value, s.words)
}

// rawWord is one word of a simple command by its source text, once
// PERM-28 and PERM-29 have admitted it: literal text, single-quoted text
// and double-quoted literal text, so the text says everything the checks
// after those read (its value is wordValue of it). Both ways of
// segmenting, the parser's and the flat one, end in these.
type rawWord struct {
	text  string
	start int // the offset of the word's first byte in the command
}

// commandWord applies to the value of a command word, known to be one
// unquoted literal, what PERM-27, PERM-51, PERM-24 and PERM-26 require of
// it, in that order.
func (s *segmenter) commandWord(v string) bool {
	switch {
	case strings.IndexByte(v, '\\') >= 0:
		return s.reject(ReasonCommandWord, "an escaped command word")
	case localeAssignment(v):
		return s.reject(ReasonLocale, "a command word a single-byte locale reads as an assignment")
	case syntax.IsKeyword(v):
		return s.reject(ReasonReserved, "reserved word "+v)
	case declarationBuiltins[v]:
		return s.reject(ReasonDeclaration, v)
	}
	return true
}

// simple applies what follows the word checks to a simple command of
// admitted words whose command word's value is name: PERM-44 to PERM-49,
// then records its segment and inner commands.
func (s *segmenter) simple(name string, words []rawWord) bool {
	// PERM-44 to PERM-46, once every word is known to be plain text.
	if !s.builtin(name, words[1:]) {
		return false
	}
	last := words[len(words)-1]
	start, end := words[0].start, last.start+len(last.text)
	// PERM-47 to PERM-49: what the command word runs, behind wrappers.
	first := len(s.inners)
	if !s.inner(words) {
		return false
	}
	if first < len(s.inners) {
		// Each inner command is a suffix of the segment, so it is
		// grammar-sensitive when the segment's last sensitive byte is in it.
		last := start + strings.LastIndexAny(s.src[start:end], grammarSensitive)
		for i := range s.inners[first:] {
			in := &s.inners[first+i]
			in.end, in.segment, in.raw = end, len(s.segments), last >= in.start
		}
	}
	// The span of a simple command starts at its first word and ends at
	// its last, so it is already trimmed (PERM-30).
	s.segments = append(s.segments, s.src[start:end])
	return true
}

// word applies PERM-28 and PERM-29 to one word. Only literal text, plain
// single quotes and double quotes holding literal text are allowed; every
// other part is an expansion of some kind.
func (s *segmenter) word(w *syntax.Word) bool {
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return s.reject(ReasonTilde, "a leading ~")
			}
			if class, bad := unquotedLit(p.Value); bad {
				return s.reject(class, "in "+p.Value)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return s.reject(ReasonExpansion, "$'…' quoting")
			}
			if !s.excuse(int(p.Left.Offset()), int(p.Right.Offset())) {
				return false
			}
			if strings.IndexByte(p.Value, '`') >= 0 {
				return s.reject(ReasonExpansion, "a backtick")
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return s.reject(ReasonExpansion, `$"…" quoting`)
			}
			for _, inner := range p.Parts {
				l, ok := inner.(*syntax.Lit)
				if !ok {
					return s.reject(ReasonExpansion, "an expansion in double quotes")
				}
				if strings.ContainsAny(l.Value, "$`") {
					return s.reject(ReasonExpansion, "$ or a backtick in double quotes")
				}
			}
		default:
			return s.reject(ReasonExpansion, "an expansion")
		}
	}
	return true
}

// excuse drops the PERM-50 bytes strictly inside the single-quoted string
// from left to right (the offsets of its quotes): there bash reads nothing
// but the closing quote, which no charset takes as a trail byte. A hazard
// before the string lies outside every single-quoted string, since words
// arrive in source order, and makes the command unknown; so does one at
// either quote, which a four-byte form can swallow.
func (s *segmenter) excuse(left, right int) bool {
	for len(s.hazards) > 0 && s.hazards[0] < right {
		if s.hazards[0] <= left {
			return s.reject(ReasonLocale, "a byte a double-byte locale reads as part of a character")
		}
		s.hazards = s.hazards[1:]
	}
	return true
}

// unquotedLit checks the raw text of an unquoted literal, where a backslash
// quotes the character after it: `$` and backticks are refused even when
// escaped (PERM-28), the glob and brace characters only when not (PERM-29).
func unquotedLit(v string) (string, bool) {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '$', '`':
			return ReasonExpansion, true
		case '\\':
			if i+1 < len(v) && (v[i+1] == '$' || v[i+1] == '`') {
				return ReasonExpansion, true
			}
			i++ // the escaped byte is quoted; a multi-byte rune's tail bytes are never special
		case '*', '?', '[', ']', '{', '}':
			return ReasonGlob, true
		}
	}
	return "", false
}
