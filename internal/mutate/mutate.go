// Package mutate is a small source mutator for Go, used to measure how much
// of the reference's behaviour the scenario suite pins down: a mutant of
// ref/ that every scenario of its area still certifies is a behaviour the
// suite does not check (or an equivalent mutant, which triage says).
//
// Each mutation replaces one byte range of one file, so a mutant is applied
// by splicing text: the rest of the file, its comments and its line numbers
// stay as they were. A mutant's ID (file:function:operator:index) names the
// same change for as long as its function is unchanged, whatever happens
// elsewhere in the file.
package mutate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strconv"
	"strings"
)

// Mutant is one small change to one file.
type Mutant struct {
	// ID is file:function:operator:index, where index counts the
	// mutants of the same operator in the same function in source order.
	// Unlike a line number, it survives edits elsewhere in the file.
	ID string
	// File is the file's slash-separated path relative to the module root.
	File string
	// Func names the top-level declaration that holds the mutant: a
	// function's name, Type.Method for a method, "-" for package-level
	// declarations (var, const, type). A name declared twice in one file
	// (init) gets #2, #3, ... from its second declaration on.
	Func string
	// Line is the 1-based line of the replaced range's start, for reports.
	Line int
	// Op names the operator that made the mutant (see Operators).
	Op string
	// Index is the mutant's index among those of Op in Func.
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
	named := map[string]int{}
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		name := declName(d)
		if named[name]++; name != "-" && named[name] > 1 {
			name += "#" + strconv.Itoa(named[name])
		}
		from := len(g.out)
		ast.Inspect(d, g.visit)
		for i := from; i < len(g.out); i++ {
			g.out[i].Func = name
		}
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
		key := fmt.Sprintf("%s:%s:%s", name, m.Func, m.Op)
		m.Index = seen[key]
		seen[key]++
		m.ID = fmt.Sprintf("%s:%d", key, m.Index)
	}
	return g.out, nil
}

// declName names a top-level declaration in mutant IDs: the function,
// Type.Method (without pointer or type parameters), or "-" for every
// declaration that is not a function.
func declName(d ast.Decl) string {
	fd, ok := d.(*ast.FuncDecl)
	if !ok {
		return "-"
	}
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.ParenExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
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
