package permission

// grammar bundles the pieces of the permission grammar that broken
// implementations most often get wrong, so that the package's tests can run
// the corpus against deliberately broken variants and prove the corpus
// catches each. The exported functions all use ref.
type grammar struct {
	// classify is the segmenter (PERM-17).
	classify func(string) Classification
	// isSpace is the whitespace set of Normalize and of the `:*` prefix
	// trim (PERM-10).
	isSpace func(rune) bool
	// denyEvery makes matchesDeny require every segment to match; the
	// seed requires some segment to (PERM-4).
	denyEvery bool
	// denyTexts picks what a deny rule is compared with: the segments and
	// the commands they run behind wrappers (PERM-47).
	denyTexts func(Classification) []text
}

// ref is the reference grammar.
var ref = grammar{
	classify:  classify,
	isSpace:   isECMAScriptSpace,
	denyTexts: denyTexts,
}

func some(texts []text, match func(text) bool) bool {
	for _, s := range texts {
		if match(s) {
			return true
		}
	}
	return false
}

func every(texts []text, match func(text) bool) bool {
	for _, s := range texts {
		if !match(s) {
			return false
		}
	}
	return true
}
