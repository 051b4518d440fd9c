// Package mutate is a small source mutator for Go, used to measure how much
// of the reference's behaviour the scenario suite pins down: a mutant of
// ref/ that every scenario of its area still certifies is a behaviour the
// suite does not check (or an equivalent mutant, which triage says).
//
// Each mutation replaces one byte range of one file, so a mutant is applied
// by splicing text: the rest of the file, its comments and its line numbers
// stay as they were, and a mutant's ID (file:line:operator:index) names the
// same change for as long as its file is unchanged.
package mutate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"
)

// Mutant is one small change to one file.
type Mutant struct {
	// ID is file:line:operator:index, where index counts the mutants of
	// the same operator on the same line in source order.
	ID string
	// File is the file's slash-separated path relative to the module root.
	File string
	// Line is the 1-based line of the replaced range's start.
	Line int
	// Op names the operator that made the mutant (see Operators).
	Op string
	// Index is the mutant's index among those of Op on Line.
	Index int
	// Start and End are the byte offsets of the replaced range.
	Start, End int
	// Old is the replaced text and New its replacement.
	Old, New string
}

// Apply returns src with the mutant's range replaced. It does not change
// src.
func (m Mutant) Apply(src []byte) []byte {
	out := make([]byte, 0, len(src)-len(m.Old)+len(m.New))
	out = append(out, src[:m.Start]...)
	out = append(out, m.New...)
	return append(out, src[m.End:]...)
}

// Describe is a one-line summary of the change, for reports: the old and
// new text, shortened.
func (m Mutant) Describe() string {
	return fmt.Sprintf("%s → %s", shorten(m.Old), shorten(m.New))
}

func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "(nothing)"
	}
	if r := []rune(s); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return s
}

// Generate returns every mutant of one Go file, in source order. name is
// the file's path relative to the module root, used in IDs.
func Generate(name string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	g := &generator{fset: fset, src: src, file: fset.File(f.Pos())}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		ast.Inspect(d, g.visit)
	}
	sort.SliceStable(g.out, func(i, j int) bool {
		a, b := g.out[i], g.out[j]
		if a.Start != b.Start {
			return a.Start < b.Start
		}
		return a.End > b.End
	})
	seen := map[string]int{}
	for i := range g.out {
		m := &g.out[i]
		m.File = name
		m.Line = g.file.Position(g.file.Pos(m.Start)).Line
		key := fmt.Sprintf("%s:%d:%s", name, m.Line, m.Op)
		m.Index = seen[key]
		seen[key]++
		m.ID = fmt.Sprintf("%s:%d", key, m.Index)
	}
	return g.out, nil
}

// generator collects the mutants of one file.
type generator struct {
	fset *token.FileSet
	file *token.File
	src  []byte
	out  []Mutant
}

func (g *generator) offset(p token.Pos) int { return g.file.Offset(p) }

// add records a replacement of [from, to) with text, made by op.
func (g *generator) add(op string, from, to token.Pos, text string) {
	s, e := g.offset(from), g.offset(to)
	old := string(g.src[s:e])
	if old == text {
		return
	}
	g.out = append(g.out, Mutant{Op: op, Start: s, End: e, Old: old, New: text})
}

// text is the source text of a node.
func (g *generator) text(n ast.Node) string {
	return string(g.src[g.offset(n.Pos()):g.offset(n.End())])
}

// isNot reports whether e is a negation, which negate-cond leaves to
// not-drop rather than doubling it.
func isNot(e ast.Expr) bool {
	u, ok := e.(*ast.UnaryExpr)
	return ok && u.Op == token.NOT
}
