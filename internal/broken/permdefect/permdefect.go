// Package permdefect holds the permission grammar's deliberate defects, one
// copy of each, as replacements for one piece of the reference grammar
// (permission.Grammar). internal/broken serves each over the protocol so
// that the scenarios must fail it; ref/permission's corpus tests run each
// against the corpus so that the corpus must fail it too. Each differs from
// the reference by exactly the mistake its name gives, one a port of the
// seed has a real chance of making.
//
// The segmenter's defects replace permission.Grammar's Classify; the
// defects of the permission functions, the matcher and the rule engine are
// knobs of Port, a hand-written port of them (port.go), which
// internal/broken serves with one knob turned per variant.
package permdefect

import (
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/apexcheck/apexcheck/ref/permission"
)

var operatorRE = regexp.MustCompile(`\|\||&&|\|&|[;&|\n]`)

// SplitIgnoringQuotes splits on ; & | and newline without regard to
// quoting, as a regular-expression splitter does. It keeps the reference's
// verdict on which commands are unknown, so that it differs in the split
// alone.
func SplitIgnoringQuotes(command string) permission.Classification {
	if c := permission.Classify(command); c.Unknown {
		return c
	}
	var segs []string
	for _, s := range operatorRE.Split(command, -1) {
		if s = strings.TrimSpace(s); s != "" {
			segs = append(segs, s)
		}
	}
	return permission.Classification{Segments: segs}
}

// GoRegexpSpace is the class \s of Go's regexp package: ASCII only, and
// without VT, where the seed's normalisation uses ECMAScript's 25 code
// points (PERM-10).
func GoRegexpSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// UnknownAsEmpty reports a command the reference cannot segment as an empty
// list of segments, which "every segment matches" then vacuously accepts.
func UnknownAsEmpty(command string) permission.Classification {
	if c := permission.Classify(command); !c.Unknown {
		return c
	}
	return permission.Classification{Segments: []string{}}
}

// WithoutInner keeps the reference's segments and forgets what they run
// behind wrappers, which is all a deny rule sees beyond them (PERM-47).
func WithoutInner(command string) permission.Classification {
	c := permission.Classify(command)
	c.Inner = nil
	return c
}

// StripWrappers reports each segment as the innermost command it runs (the
// shortest inner command that ends it), so that allow rules see through
// wrappers too.
func StripWrappers(command string) permission.Classification {
	c := permission.Classify(command)
	if c.Unknown {
		return c
	}
	segs := make([]string, len(c.Segments))
	for i, s := range c.Segments {
		segs[i] = s
		for _, in := range c.Inner {
			if strings.HasSuffix(s, in) && len(in) < len(segs[i]) {
				segs[i] = in
			}
		}
	}
	return permission.Classification{Segments: segs, Inner: c.Inner}
}

// RunsTextAsSegments turns every "runs text" verdict of the reference
// (PERM-49) back into the simple commands of the parse, as a grammar that
// treats `sh`, `eval` and the rest as ordinary command words would.
var RunsTextAsSegments = reparsedWhen(func(c permission.Classification, _ []string) bool {
	return strings.HasPrefix(c.Reason, permission.ReasonRunsText+":")
})

// ScriptFromInputClassifies classifies a shell reading its script from
// /dev/stdin, /dev/fd/N, /proc/…/fd/N and the like as a shell running a
// script file, as PERM-49 did before PERM-55.
var ScriptFromInputClassifies = reparsedWhen(func(c permission.Classification, _ []string) bool {
	return strings.HasPrefix(c.Reason, permission.ReasonRunsText+":") && strings.Contains(c.Reason, " reading a script from ")
})

// NewFamiliesClassify treats the privilege runners, chain loaders,
// multi-call binaries and other runners PERM-57 adds to PERM-49 as
// ordinary programs.
var NewFamiliesClassify = reparsedWhen(func(c permission.Classification, _ []string) bool {
	detail, ok := strings.CutPrefix(c.Reason, permission.ReasonRunsText+": ")
	return ok && slices.Contains(newFamilies, detail)
})

var newFamilies = strings.Fields(`run0 sudo-rs su-rs sudoedit please pleaseedit gosu calife ksu capsh
	setuidgid envuidgid envdir softlimit setlock pgrphack chpst toybox coreutils runcon scriptlive`)

// NewRowsUnread reads prlimit, choom, uclampset, setarch and setarch's
// personality aliases as ordinary programs, as the table did before
// PERM-56: no inner command behind them, and setarch with no program
// classifies.
var NewRowsUnread = reparsedWhen(func(c permission.Classification, words []string) bool {
	class, _, _ := strings.Cut(c.Reason, ":")
	if c.Unknown && class != permission.ReasonRunsText && class != permission.ReasonWrapper {
		return false
	}
	return slices.ContainsFunc(words, func(w string) bool {
		return slices.Contains(newRows, w[strings.LastIndexByte(w, '/')+1:])
	})
})

var newRows = strings.Fields("prlimit choom uclampset setarch uname26 linux32 linux64 i386 i486 i586 i686 athlon x86_64")

// OutputOptionClassifies lets `git diff --output=FILE` and the like
// classify, as the grammar did before PERM-58.
var OutputOptionClassifies = reparsedWhen(func(c permission.Classification, _ []string) bool {
	return strings.HasPrefix(c.Reason, permission.ReasonWrites+":")
})

// reparsedWhen returns a classifier that answers as the reference does,
// except that where pick holds for the reference's answer and the
// command's words it answers with the simple commands of the parse as
// segments and no inner commands: the command read as ordinary programs.
func reparsedWhen(pick func(c permission.Classification, words []string) bool) func(string) permission.Classification {
	return func(command string) permission.Classification {
		c := permission.Classify(command)
		f, err := syntax.NewParser().Parse(strings.NewReader(command), "")
		if err != nil {
			return c
		}
		var segs, words []string
		syntax.Walk(f, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CallExpr:
				for _, w := range n.Args {
					words = append(words, w.Lit())
				}
			case *syntax.DeclClause, *syntax.LetClause:
				// Declaration builtins parse as clauses of their own.
			default:
				return true
			}
			segs = append(segs, command[n.Pos().Offset():n.End().Offset()])
			return false
		})
		if len(segs) == 0 || !pick(c, words) {
			return c
		}
		return permission.Classification{Segments: segs}
	}
}
