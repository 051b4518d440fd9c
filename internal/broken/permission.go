package broken

import (
	"io"
	"regexp"
	"strings"

	"github.com/apexcheck/apexcheck/ref/permission"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The permission variants are the reference with one piece of its grammar
// replaced (permission.Grammar): the four mistakes issue 5 names, each of
// which a port of the seed has a real chance of making.
func init() {
	Register("perm-split-ignores-quotes", Variant{
		Defect: "splits a command on ; & | and newline without regard to quoting, as a regular-expression splitter does",
		// `echo 'a;b'` becomes two segments; quoted operators are the quoting class.
		Scenarios: `^perm_(segments_quoting|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: splitIgnoringQuotes}),
	})
	Register("perm-go-space", Variant{
		Defect: "normalises rules with Go's regexp \\s (ASCII, no VT) instead of ECMAScript's 25 whitespace code points",
		// NBSP, U+3000, VT and the rest in a rule no longer normalise to a space.
		Scenarios: `^perm_(match_whitespace|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{IsSpace: goRegexpSpace}),
	})
	Register("perm-deny-every", Variant{
		Defect:    "matches a deny rule only when every segment matches, so `npm test && rm -rf build` escapes `rm:*`",
		Scenarios: `^perm_(engine_applies|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{DenyEvery: true}),
	})
	Register("perm-unknown-empty", Variant{
		Defect:    "reports a command it cannot segment as an empty list of segments, which every allow rule then vacuously matches",
		Scenarios: `^perm_(unknown_.*|engine_unknown_calls|tokenizer_bypasses)$`,
		Serve:     withPermissions(permission.Grammar{Classify: unknownAsEmpty}),
	})
}

// withPermissions serves the reference with its permission answers given
// by g.
func withPermissions(g permission.Grammar) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(func(c *tool.Config) { c.Permissions = g.Answer }).Serve(in, out)
	}
}

var operatorRE = regexp.MustCompile(`\|\||&&|\|&|[;&|\n]`)

// splitIgnoringQuotes keeps the reference's verdict on which commands are
// unknown, so that it differs in the split alone.
func splitIgnoringQuotes(command string) permission.Classification {
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

// goRegexpSpace is the class \s of Go's regexp package.
func goRegexpSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\f' || r == '\r'
}

// unknownAsEmpty turns every unknown verdict into "no segments".
func unknownAsEmpty(command string) permission.Classification {
	if c := permission.Classify(command); !c.Unknown {
		return c
	}
	return permission.Classification{Segments: []string{}}
}
