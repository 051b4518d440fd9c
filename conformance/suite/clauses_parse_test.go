package suite

import "testing"

func TestParseClausesProvenanceWithParentheses(t *testing.T) {
	tests := []struct{ para, prov, text string }{
		{"**OUT-1** (MUST; seed `f({ a: [] })` before) Text (with parens).", "seed `f({ a: [] })` before", "Text (with parens)."},
		{"**OUT-2** (MUST; derived: g(x) (nested)) Text.", "derived: g(x) (nested)", "Text."},
		{"**OUT-3** (SHOULD; seed) Plain (text).", "seed", "Plain (text)."},
	}
	for _, tt := range tests {
		cs, err := parseClauses("t.md", []byte(tt.para+"\n"))
		if err != nil || len(cs) != 1 || cs[0].Provenance != tt.prov || cs[0].Text != tt.text {
			t.Errorf("parseClauses(%q) = %+v, %v; want provenance %q, text %q", tt.para, cs, err, tt.prov, tt.text)
		}
	}
}
