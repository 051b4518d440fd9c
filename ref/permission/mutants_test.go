package permission_test

import (
	"testing"
	"unicode"

	"github.com/apexcheck/apexcheck/internal/broken/permdefect"
	"github.com/apexcheck/apexcheck/ref/permission"
)

// The defects of internal/broken/permdefect are the mistakes the issues
// name, each a replacement for one piece of the reference grammar; the
// corpus must reject every one of them, or it is not testing what it claims
// to. internal/broken serves the same defects to the scenarios.
func TestCorpusCatchesBrokenVariants(t *testing.T) {
	mutants := []struct {
		name string
		g    permission.Grammar
	}{
		{"split ignoring quotes", permission.Grammar{Classify: permdefect.SplitIgnoringQuotes}},
		{"Go regexp \\s instead of ECMAScript's", permission.Grammar{IsSpace: permdefect.GoRegexpSpace}},
		{"unicode.IsSpace instead of ECMAScript's", permission.Grammar{IsSpace: unicode.IsSpace}},
		{"deny matched with every", permission.Grammar{DenyEvery: true}},
		{"unknown treated as no segments", permission.Grammar{Classify: permdefect.UnknownAsEmpty}},
		{"deny blind to wrappers", permission.Grammar{Classify: permdefect.WithoutInner}},
		{"text runners classify", permission.Grammar{Classify: permdefect.RunsTextAsSegments}},
		{"wrappers stripped from segments", permission.Grammar{Classify: permdefect.StripWrappers}},
		{"scripts from a process's input classify", permission.Grammar{Classify: permdefect.ScriptFromInputClassifies}},
		{"PERM-56 rows unread", permission.Grammar{Classify: permdefect.NewRowsUnread}},
		{"PERM-57 runners classify", permission.Grammar{Classify: permdefect.NewFamiliesClassify}},
		{"git --output classifies", permission.Grammar{Classify: permdefect.OutputOptionClassifies}},
		{"Unicode blanks classify", permission.Grammar{Classify: permdefect.UnicodeBlanksClassify}},
		{"backslash-newline classifies", permission.Grammar{Classify: permdefect.ContinuationClassifies}},
		{"parse errors split", permission.Grammar{Classify: permdefect.ParseErrorsSplit}},
		{"redirections classify", permission.Grammar{Classify: permdefect.RedirectionsClassify}},
		{"compound commands walked", permission.Grammar{Classify: permdefect.CompoundsWalked}},
		{"assignments classify", permission.Grammar{Classify: permdefect.AssignmentsClassify}},
		{"declarations classify", permission.Grammar{Classify: permdefect.DeclarationsClassify}},
		{"quoted command word classifies", permission.Grammar{Classify: permdefect.QuotedCommandWordClassifies}},
		{"expansions classify", permission.Grammar{Classify: permdefect.ExpansionsClassify}},
		{"globs classify", permission.Grammar{Classify: permdefect.GlobsClassify}},
		{"blank classifies", permission.Grammar{Classify: permdefect.BlankClassifies}},
		{"pipeline as one segment", permission.Grammar{Classify: permdefect.PipelineAsOneSegment}},
		{"published tokenizer", permission.Grammar{Classify: permdefect.PublishedTokenizer}},
		{"evaluating builtins classify", permission.Grammar{Classify: permdefect.EvaluatingBuiltinsClassify}},
		{"lookup builtins classify", permission.Grammar{Classify: permdefect.LookupBuiltinsClassify}},
		{"builtin name unfollowed", permission.Grammar{Classify: permdefect.BuiltinNameUnfollowed}},
		{"wrapper options unread", permission.Grammar{Classify: permdefect.WrapperOptionsUnread}},
		{"background not split", permission.Grammar{Classify: permdefect.BackgroundNotSplit}},
	}
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			byFile := permission.CorpusFailures(t, m.g)
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
// (the zero Grammar) must pass where every mutant fails, or the mutants
// prove nothing.
func TestReferenceIsNotAMutant(t *testing.T) {
	for file, n := range permission.CorpusFailures(t, permission.Grammar{}) {
		if n != 0 {
			t.Errorf("the reference fails %d entries of %s", n, file)
		}
	}
}
