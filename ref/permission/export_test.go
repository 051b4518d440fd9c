package permission

import "testing"

// CorpusFailures counts, by corpus file, the entries of the permission
// corpus that g answers differently, for the external tests that run the
// defects of internal/broken/permdefect (mutants_test.go), which cannot be
// imported from inside the package.
func CorpusFailures(tb testing.TB, g Grammar) map[string]int {
	in := g.grammar()
	return map[string]int{
		"commands.json": len(commandFailures(in, load[commandEntry](tb, "commands.json"))),
		"rules.json":    len(ruleFailures(in, load[ruleEntry](tb, "rules.json"))),
		"engine.json":   len(engineFailures(in, load[engineEntry](tb, "engine.json"))),
	}
}
