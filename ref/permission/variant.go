package permission

import (
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

// Grammar names the pieces of the permission grammar that ports most often
// get wrong. It exists so that the kit's broken implementations
// (internal/broken) can replace exactly one piece of the reference and prove
// that the suite catches the defect; the reference itself uses Answer. A nil
// or false field keeps the reference's piece.
type Grammar struct {
	// Classify replaces the segmenter (PERM-17).
	Classify func(command string) Classification
	// IsSpace replaces ECMAScript's whitespace set, used to normalise
	// segments and rules and to trim a `:*` prefix (PERM-10).
	IsSpace func(r rune) bool
	// DenyEvery makes the deny matcher require every segment to match,
	// instead of some segment (PERM-4).
	DenyEvery bool
}

// Answer is the package's Answer with g's pieces in place of the
// reference's.
func (g Grammar) Answer(rules []protocol.Rule, p call.Parsed) protocol.PermissionAnswer {
	return g.grammar().answer(rules, p)
}

// grammar is the reference grammar with g's pieces in place.
func (g Grammar) grammar() grammar {
	in := ref
	if g.Classify != nil {
		in.classify = g.Classify
	}
	if g.IsSpace != nil {
		in.isSpace = g.IsSpace
	}
	if g.DenyEvery {
		in.denyEvery = true
	}
	return in
}
