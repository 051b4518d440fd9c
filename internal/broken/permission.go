package broken

import (
	"io"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/apexcheck/apexcheck/internal/broken/permdefect"
	"github.com/apexcheck/apexcheck/ref/permission"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The permission variants are the reference with one piece of its grammar
// replaced (permission.Grammar) by a defect of package permdefect, which
// ref/permission's corpus tests run too.
func init() {
	Register("perm-split-ignores-quotes", Variant{
		Clause: "PERM-30",
		Defect: "splits a command on ; & | and newline without regard to quoting, as a regular-expression splitter does",
		// `echo 'a;b'` becomes two segments; quoted operators are the quoting class.
		Scenarios: `^perm_(segments_quoting|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.SplitIgnoringQuotes}),
	})
	Register("perm-go-space", Variant{
		Clause: "PERM-10",
		Defect: "normalises rules with Go's regexp \\s (ASCII, no VT) instead of ECMAScript's 25 whitespace code points",
		// NBSP, U+3000, VT and the rest in a rule no longer normalise to a space.
		Scenarios: `^perm_(match_whitespace|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{IsSpace: permdefect.GoRegexpSpace}),
	})
	Register("perm-deny-every", Variant{
		Clause:    "PERM-4",
		Defect:    "matches a deny rule only when every segment matches, so `npm test && rm -rf build` escapes `rm:*`",
		Scenarios: `^perm_(engine_applies|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{DenyEvery: true}),
	})
	Register("perm-unknown-empty", Variant{
		Clause:    "PERM-17",
		Defect:    "reports a command it cannot segment as an empty list of segments, which every allow rule then vacuously matches",
		Scenarios: `^perm_(unknown_.*|engine_unknown_calls|tokenizer_bypasses)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.UnknownAsEmpty}),
	})
	Register("perm-deny-blind-wrappers", Variant{
		Clause:    "PERM-47",
		Defect:    "compares a deny rule with the segments only, so `nohup rm -rf build` and `env rm` escape `rm:*`",
		Scenarios: `^perm_(deny_wrappers|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.WithoutInner}),
	})
	Register("perm-runs-text-classifies", Variant{
		Clause:    "PERM-49",
		Defect:    "classifies `sh -c`, `eval`, `source`, `trap`, `xargs` and `find -exec` as ordinary segments, so the text they run escapes every deny rule",
		Scenarios: `^perm_(deny_runs_text|deny_allow_unchanged|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.RunsTextAsSegments}),
	})
	Register("perm-strip-wrappers", Variant{
		Clause:    "PERM-47",
		Defect:    "reports the program behind a wrapper as the segment, so an allow rule `rm:*` authorises `nohup rm -rf build`",
		Scenarios: `^perm_(deny_allow_unchanged|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.StripWrappers}),
	})
	Register("perm-script-from-input", Variant{
		Clause:    "PERM-55",
		Defect:    "classifies `sh /dev/stdin`, `bash /dev/fd/0` and `bash /proc/self/fd/0` as a shell running a script file, so `curl … | bash /dev/stdin` escapes every deny rule",
		Scenarios: `^perm_(deny_script_input|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.ScriptFromInputClassifies}),
	})
	Register("perm-new-rows-unread", Variant{
		Clause:    "PERM-56",
		Defect:    "reads prlimit, choom, uclampset, setarch and linux32/linux64/i386/x86_64 as ordinary programs, so `setarch x86_64 rm -rf build` escapes `rm:*`",
		Scenarios: `^perm_(deny_wrapper_families|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.NewRowsUnread}),
	})
	Register("perm-new-runners-classify", Variant{
		Clause:    "PERM-57",
		Defect:    "classifies run0, sudo-rs, gosu, capsh, toybox, coreutils --coreutils-prog and the other runners of PERM-57 as ordinary programs",
		Scenarios: `^perm_(deny_wrapper_families|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.NewFamiliesClassify}),
	})
	Register("perm-output-option-classifies", Variant{
		Clause:    "PERM-58",
		Defect:    "classifies `git diff --output=FILE`, so an allow rule `git diff:*` authorises overwriting a file",
		Scenarios: `^perm_(unknown_writes_file|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: permdefect.OutputOptionClassifies}),
	})
}

// withPermissions serves the reference with its permission answers given
// by g.
func withPermissions(g permission.Grammar) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(func(c *tool.Config) { c.Permissions = g.Answer }).Serve(in, out)
	}
}

// The variants of issue 19's locale and depth clauses (PERM-50 to PERM-52).
func init() {
	Register("perm-locale-blind", Variant{
		Clause: "PERM-50",
		Defect: "reads the command as UTF-8 whatever bash's locale, so `ls 中\\; rm x` (rm under zh_TW.BIG5) and `ª=1 rm x` (rm under ISO-8859-1) classify",
		// The locale entries of the corpus and the scenario's requests.
		Scenarios: `^perm_(unknown_locale|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: localeBlind(doubleByte)}),
	})
	Register("perm-assignment-ascii-letters", Variant{
		Clause: "PERM-51",
		Defect: "decides whether a command word is an assignment with ASCII letters only, as UTF-8 does, so `ª=1 rm x` (rm under ISO-8859-1) classifies as the program `ª=1`",
		// The scenario's `ª=1 rm x` and the corpus's single-byte entries.
		Scenarios: `^perm_(unknown_locale|corpus_whole)$`,
		Serve:     withPermissions(permission.Grammar{Classify: localeBlind(singleByte)}),
	})
	Register("perm-parses-deep", Variant{
		Clause:    "PERM-52",
		Defect:    "hands every command to a recursive parser, so a 400,000-deep `$(` exhausts the stack and kills the server",
		Scenarios: `^perm_unknown_deep$`,
		Serve:     withPermissions(permission.Grammar{Classify: parsesDeep}),
	})
}

// The two locale verdicts of the reference, by the detail of their reason:
// PERM-50's double-byte reading and PERM-51's single-byte assignment.
const (
	doubleByte = "double-byte"
	singleByte = "single-byte"
)

// localeBlind returns a classifier that, where the reference's verdict is
// the locale one whose reason names kind, classifies the command with every
// character outside ASCII replaced by as many bytes of `%` (neither special
// to bash nor a letter), the reading of a grammar that sees UTF-8 only, and
// maps the segments back onto the command by their offsets. Every other
// verdict is the reference's.
func localeBlind(kind string) func(string) permission.Classification {
	return func(command string) permission.Classification {
		c := permission.Classify(command)
		if !strings.HasPrefix(c.Reason, permission.ReasonLocale+":") || !strings.Contains(c.Reason, kind) {
			return c
		}
		return utf8Reading(command, c)
	}
}

// utf8Reading is localeBlind's classification of command, whose reference
// classification is c.
func utf8Reading(command string, c permission.Classification) permission.Classification {
	ascii := []byte(command)
	for i, b := range ascii {
		if b >= 0x80 {
			ascii[i] = '%'
		}
	}
	blind := permission.Classify(string(ascii))
	if blind.Unknown {
		return blind
	}
	back := func(texts []string) []string {
		var out []string
		from := 0
		for _, t := range texts {
			i := strings.Index(string(ascii[from:]), t)
			if i < 0 {
				return nil
			}
			out = append(out, command[from+i:from+i+len(t)])
			from += i
		}
		return out
	}
	segs := back(blind.Segments)
	if segs == nil {
		return c
	}
	return permission.Classification{Segments: segs, Inner: back(blind.Inner)}
}

// parsesDeep parses the whole command with mvdan.cc/sh before the
// reference classifies it, as a segmenter without PERM-52's bound does.
func parsesDeep(command string) permission.Classification {
	syntax.NewParser().Parse(strings.NewReader(command), "")
	return permission.Classify(command)
}
