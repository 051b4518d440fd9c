package broken

import (
	"io"
	"slices"

	"github.com/apexcheck/apexcheck/internal/broken/permdefect"
	"github.com/apexcheck/apexcheck/ref/permission"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The permission functions and the rule engine of permissions.md written
// again by hand (permdefect.Port), one knob turned per variant: the
// mistakes of a port of the seed's bash.ts and of ADR 0004's engine.
func init() {
	Controls["perm-port"] = Variant{
		Defect:    "none: the hand-written permission functions and engine the perm-port variants turn one knob of",
		Scenarios: `^perm_`,
		Serve:     withPermissionPort(permdefect.Port{}),
	}
	for _, v := range []struct {
		name, clause, defect, scenarios string
		port                            permdefect.Port
	}{
		{"perm-default-deny", "PERM-1",
			"makes the tool's default behaviour deny, failing closed, where the seed's is ask",
			`^perm_engine_defaults$`, permdefect.Port{ToolDefault: permission.Deny}},
		{"perm-handle-default-ask", "PERM-2",
			"gives retrieve and kill calls no per-call default, so with no rule they ask like a run call",
			`^perm_(engine_defaults|handle_calls)$`, permdefect.Port{HandleDefaultUndefined: true}},
		{"perm-allow-some", "PERM-3",
			"matches an allow rule when some segment matches, the deny matcher's quantifier copied, so `ls:*` authorises `ls && rm x`",
			`^perm_(engine_applies|deny_allow_unchanged|rejected_calls)$`, permdefect.Port{AllowSome: true}},
		{"perm-handle-unknown", "PERM-5",
			"reports a retrieve or kill call unknown, since it has no command that classifies",
			`^perm_(handle_calls|engine_unknown_calls)$`, permdefect.Port{HandleCallsUnknown: true}},
		{"perm-describe-escaped", "PERM-6",
			"inserts the content into the description as JSON.stringify writes it, quotes and backslashes escaped",
			`^perm_describe$`, permdefect.Port{DescribeQuoted: true}},
		{"perm-preview-lines", "PERM-7",
			"previews a run call as its command split into lines, one preview line each",
			`^perm_(preview|handle_calls|rejected_calls)$`, permdefect.Port{PreviewLines: true}},
		{"perm-rule-for-chain", "PERM-8",
			"persists the whole command, normalised, as the rule for a chain, which matches none of its segments",
			`^perm_(rule_for_call|segments_chains)$`, permdefect.Port{RuleForWholeCommand: true}},
		{"perm-handle-rule-normalised", "PERM-9",
			"matches the reserved rule as a segment is matched, so ` background-handle` and `background-handle:*` govern handle calls",
			`^perm_(handle_calls|match_exact)$`, permdefect.Port{HandleRuleAsSegment: true}},
		{"perm-trim-only", "PERM-11",
			"normalises a segment and a rule by trimming them, without collapsing the whitespace inside",
			`^perm_(match_whitespace|rule_for_call)$`, permdefect.Port{TrimOnly: true}},
		{"perm-sensitive-quotes-only", "PERM-12",
			"counts only quotes and the backslash as grammar-sensitive, so a TAB, a LF or a `#` is collapsed away",
			`^perm_(match_raw|rule_for_call)$`, permdefect.Port{SensitiveQuotesOnly: true}},
		{"perm-prefix-untrimmed", "PERM-13",
			"keeps the blanks before `:*` in the prefix, so `git commit :*` matches no `git commit -m x`",
			`^perm_match_prefix$`, permdefect.Port{PrefixUntrimmed: true}},
		{"perm-empty-prefix-matches", "PERM-14",
			"matches the prefix rule `:*` against every segment, as startsWith(\"\") does",
			`^perm_match_prefix$`, permdefect.Port{EmptyPrefixMatches: true}},
		{"perm-prefix-no-boundary", "PERM-15",
			"matches a prefix rule with startsWith alone, so `git commit:*` matches `git commitment`",
			`^perm_match_prefix$`, permdefect.Port{NoWordBoundary: true}},
		{"perm-star-wildcard", "PERM-16",
			"reads `*` in a rule that is not a prefix rule as a glob, so `ls *` matches `ls -la`",
			`^perm_match_exact$`, permdefect.Port{StarWildcard: true}},
		{"perm-tool-wide-as-empty", "PERM-34",
			"reads a rule without content as the content \"\", as a nil string dereferenced, so a tool-wide rule applies to nothing known",
			`^perm_engine_sources$`, permdefect.Port{ToolWideAsEmpty: true}},
		{"perm-ask-matches-like-deny", "PERM-35",
			"matches ask rules with the deny matcher, both being restrictive, so `ask rm:*` asks for `ls && rm x`",
			`^perm_(engine_applies|deny_allow_unchanged)$`, permdefect.Port{AskMatchesLikeDeny: true}},
		{"perm-sources-reversed", "PERM-36",
			"ranks the sources as a configuration merge does, the last listed (session) overriding the rest",
			`^perm_engine_sources$`, permdefect.Port{Sources: reversed(permission.Sources)}},
		{"perm-deny-overrides", "PERM-37",
			"lets an applying deny rule win over allow and ask rules of every source, as most permission systems do",
			`^perm_(engine_tie_breaks|deny_allow_unchanged|engine_sources)$`, permdefect.Port{DenyOverrides: true}},
		{"perm-unlisted-source-first", "PERM-38",
			"ranks a source by its index in the list, so an unlisted source's -1 outranks policy",
			`^perm_engine_unlisted_source$`, permdefect.Port{UnlistedFirst: true}},
		{"perm-tool-wide-allows-unknown", "PERM-39",
			"applies a tool-wide allow rule before asking whether the call is unknown, so it authorises `sh -c 'rm x'`",
			`^perm_(engine_unknown_calls|rejected_calls|deny_allow_unchanged)$`, permdefect.Port{ToolWideAllowsUnknown: true}},
		{"perm-ask-applies-to-unknown", "PERM-40",
			"applies every ask rule to an unknown call, as every deny rule applies",
			`^perm_engine_unknown_calls$`, permdefect.Port{AskAppliesToUnknown: true}},
		{"perm-default-before-rules", "PERM-41",
			"decides a retrieve or kill call by its per-call default allow before the rules, so a deny rule never refuses it",
			`^perm_(engine_defaults|handle_calls)$`, permdefect.Port{DefaultBeforeRules: true}},
		{"perm-ask-resolved", "PERM-42",
			"reports an ask decision as the deny it resolves to with no responder",
			`^perm_engine_defaults$`, permdefect.Port{AskResolved: true}},
		{"perm-descriptions-of-content", "PERM-43",
			"describes only the rules with content, so the descriptions no longer line up with the rules",
			`^perm_(describe|engine_sources)$`, permdefect.Port{DescriptionsOfContent: true}},
	} {
		Register(v.name, Variant{Clause: v.clause, Defect: v.defect, Scenarios: v.scenarios,
			Serve: withPermissionPort(v.port)})
	}
}

// The segmenter's defects, each the reference with one check of
// PERM-19 to PERM-48 left out (permdefect).
func init() {
	for _, v := range []struct {
		name, clause, defect, scenarios string
		classify                        func(string) permission.Classification
	}{
		{"perm-unicode-blanks-classify", "PERM-19",
			"refuses control characters but not format characters or Unicode spaces, so `ls\\u00a0-la` classifies",
			`^perm_(unknown_text|tokenizer_bypasses)$`, permdefect.UnicodeBlanksClassify},
		{"perm-continuation-classifies", "PERM-20",
			"lets a backslash-newline reach the parser, so `r\\`+LF+`m -rf x` classifies while bash runs rm",
			`^perm_(unknown_text|tokenizer_bypasses)$`, permdefect.ContinuationClassifies},
		{"perm-parse-errors-split", "PERM-21",
			"has no bash parser: splits on operators outside quotes and refuses only an unterminated quote, so `ls )` classifies",
			`^perm_(unknown_syntax|tokenizer_bypasses)$`, permdefect.ParseErrorsSplit},
		{"perm-background-not-split", "PERM-22",
			"splits on `;`, `&&`, `||`, `|` and LF but not on a lone `&`, so an allow rule `ls:*` matches `ls & rm x`",
			`^perm_segments_chains$`, permdefect.BackgroundNotSplit},
		{"perm-redirections-classify", "PERM-23",
			"takes the simple commands of the parse without their redirections, so `git log > README.md` rides on `git log:*`",
			`^perm_(unknown_syntax|unknown_writes_file)$`, permdefect.RedirectionsClassify},
		{"perm-compounds-walked", "PERM-24",
			"collects the simple commands wherever the syntax tree holds them, inside `if`, loops, groups, `!` and `time`",
			`^perm_unknown_constructs$`, permdefect.CompoundsWalked},
		{"perm-assignments-classify", "PERM-25",
			"keeps an assignment before the command word in the segment, so `FOO=1 rm x` escapes `rm:*`",
			`^perm_unknown_assignment$`, permdefect.AssignmentsClassify},
		{"perm-declarations-classify", "PERM-26",
			"treats declare, export, local, readonly, typeset and let as ordinary commands",
			`^perm_unknown_builtins$`, permdefect.DeclarationsClassify},
		{"perm-quoted-command-word", "PERM-27",
			"accepts a quoted or escaped command word, so `'rm' -rf x` and `r\\m -rf x` escape `rm:*`",
			`^perm_unknown_command_word$`, permdefect.QuotedCommandWordClassifies},
		{"perm-expansions-classify", "PERM-28",
			"lets `$` and backticks through, so the command of a `$(…)` hides in an argument",
			`^perm_(unknown_expansion|segments_quoting)$`, permdefect.ExpansionsClassify},
		{"perm-globs-classify", "PERM-29",
			"lets unquoted globs, braces and a leading tilde through",
			`^perm_(unknown_expansion|segments_quoting)$`, permdefect.GlobsClassify},
		{"perm-blank-classifies", "PERM-31",
			"reports a blank command as the one segment it is, which a tool-wide allow rule then authorises",
			`^perm_unknown_text$`, permdefect.BlankClassifies},
		{"perm-pipeline-one-segment", "PERM-32",
			"keeps a pipeline whole as one segment, so an allow rule `ls:*` matches `ls | rm x`",
			`^perm_(segments_chains|corpus_whole)$`, permdefect.PipelineAsOneSegment},
		{"perm-published-tokenizer", "PERM-33",
			"classifies what apex-code's published tokenizer accepts as it splits it: comments, `!`, `time`, assignments and quoted command words included",
			`^perm_tokenizer_bypasses$`, permdefect.PublishedTokenizer},
		{"perm-evaluating-builtins-classify", "PERM-44",
			"treats read, mapfile, getopts, compgen, `printf -v` and `test -v` as ordinary commands",
			`^perm_unknown_builtins$`, permdefect.EvaluatingBuiltinsClassify},
		{"perm-lookup-builtins-classify", "PERM-45",
			"treats alias, hash and enable as ordinary commands",
			`^perm_unknown_builtins$`, permdefect.LookupBuiltinsClassify},
		{"perm-builtin-name-unfollowed", "PERM-46",
			"checks the declaration and evaluating builtins against the command word only, so `command printf -v …` classifies",
			`^perm_unknown_builtins$`, permdefect.BuiltinNameUnfollowed},
		{"perm-wrapper-options-unread", "PERM-48",
			"skips a wrapper's options as flags taking no argument, so the program behind `nice -n 5 rm x` is `5`",
			`^perm_(deny_wrappers|deny_wrapper_families)$`, permdefect.WrapperOptionsUnread},
	} {
		Register(v.name, Variant{Clause: v.clause, Defect: v.defect, Scenarios: v.scenarios,
			Serve: withPermissions(permission.Grammar{Classify: v.classify})})
	}
}

// withPermissionPort serves the reference with its permission answers
// given by the hand-written port e.
func withPermissionPort(e permdefect.Port) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(func(c *tool.Config) { c.Permissions = e.Answer }).Serve(in, out)
	}
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}
