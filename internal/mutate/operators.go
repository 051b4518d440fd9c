package mutate

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// Operators names every operator Generate applies, with what it does.
var Operators = map[string]string{
	"arith":       "an arithmetic or bitwise operator swapped (+ -, * /, % *, & |, << >>)",
	"assign-op":   "a compound assignment's operator swapped (+= -=, |= &=, ...)",
	"cmp-bound":   "a comparison's boundary moved (< <=, > >=)",
	"cmp-negate":  "a comparison negated (== !=, < >=, ...)",
	"logic":       "&& and || swapped",
	"not-drop":    "a ! removed",
	"negate-cond": "an if or for condition negated",
	"bool-flip":   "true and false swapped",
	"const-inc":   "a number literal plus one",
	"const-dec":   "a number literal minus one",
	"incdec":      "++ and -- swapped",
	"str-empty":   "a non-empty string literal emptied",
	"str-fill":    "an empty string literal filled",
	"str-swap":    "two adjacent string literal arguments swapped",
	"drop":        "a statement removed (call, assignment, ++/--, defer, go, send)",
	"ret-nil-err": "a returned err replaced by nil",
}

var (
	arithSwap = map[token.Token]token.Token{
		token.ADD: token.SUB, token.SUB: token.ADD,
		token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL,
		token.AND: token.OR, token.OR: token.AND, token.XOR: token.AND,
		token.AND_NOT: token.AND,
		token.SHL:     token.SHR, token.SHR: token.SHL,
	}
	assignSwap = map[token.Token]token.Token{
		token.ADD_ASSIGN: token.SUB_ASSIGN, token.SUB_ASSIGN: token.ADD_ASSIGN,
		token.MUL_ASSIGN: token.QUO_ASSIGN, token.QUO_ASSIGN: token.MUL_ASSIGN,
		token.OR_ASSIGN: token.AND_ASSIGN, token.AND_ASSIGN: token.OR_ASSIGN,
		token.AND_NOT_ASSIGN: token.OR_ASSIGN,
		token.SHL_ASSIGN:     token.SHR_ASSIGN, token.SHR_ASSIGN: token.SHL_ASSIGN,
	}
	boundSwap = map[token.Token]token.Token{
		token.LSS: token.LEQ, token.LEQ: token.LSS,
		token.GTR: token.GEQ, token.GEQ: token.GTR,
	}
	negateSwap = map[token.Token]token.Token{
		token.EQL: token.NEQ, token.NEQ: token.EQL,
		token.LSS: token.GEQ, token.GEQ: token.LSS,
		token.GTR: token.LEQ, token.LEQ: token.GTR,
	}
	logicSwap = map[token.Token]token.Token{token.LAND: token.LOR, token.LOR: token.LAND}
)

// visit is the ast.Inspect callback: it records the mutants at n.
func (g *generator) visit(n ast.Node) bool {
	switch n := n.(type) {
	case *ast.BinaryExpr:
		g.binary(n)
	case *ast.AssignStmt:
		if t, ok := assignSwap[n.Tok]; ok {
			g.add("assign-op", n.TokPos, n.TokPos+token.Pos(len(n.Tok.String())), t.String())
		}
	case *ast.IncDecStmt:
		t := token.DEC
		if n.Tok == token.DEC {
			t = token.INC
		}
		g.add("incdec", n.TokPos, n.TokPos+2, t.String())
	case *ast.UnaryExpr:
		if n.Op == token.NOT {
			g.add("not-drop", n.OpPos, n.OpPos+1, "")
		}
	case *ast.Ident:
		switch n.Name {
		case "true":
			g.add("bool-flip", n.Pos(), n.End(), "false")
		case "false":
			g.add("bool-flip", n.Pos(), n.End(), "true")
		}
	case *ast.BasicLit:
		g.literal(n)
	case *ast.IfStmt:
		g.negate(n.Cond)
	case *ast.ForStmt:
		if n.Cond != nil {
			g.negate(n.Cond)
		}
	case *ast.BlockStmt:
		for _, s := range n.List {
			g.drop(s)
		}
	case *ast.CaseClause:
		for _, s := range n.Body {
			g.drop(s)
		}
	case *ast.CommClause:
		for _, s := range n.Body {
			g.drop(s)
		}
	case *ast.CallExpr:
		g.swapStrings(n)
	case *ast.ReturnStmt:
		for _, r := range n.Results {
			if id, ok := r.(*ast.Ident); ok && id.Name == "err" {
				g.add("ret-nil-err", id.Pos(), id.End(), "nil")
			}
		}
	}
	return true
}

func (g *generator) binary(n *ast.BinaryExpr) {
	at, end := n.OpPos, n.OpPos+token.Pos(len(n.Op.String()))
	if t, ok := arithSwap[n.Op]; ok {
		// String concatenation has no other operator: a string literal
		// on either side makes the swap a compile error, so skip it.
		if !(n.Op == token.ADD && (isString(n.X) || isString(n.Y))) {
			g.add("arith", at, end, t.String())
		}
	}
	if t, ok := boundSwap[n.Op]; ok {
		g.add("cmp-bound", at, end, t.String())
	}
	if t, ok := negateSwap[n.Op]; ok {
		g.add("cmp-negate", at, end, t.String())
	}
	if t, ok := logicSwap[n.Op]; ok {
		g.add("logic", at, end, t.String())
	}
}

// isString reports whether e is visibly a string: a string literal, or a
// concatenation with one.
func isString(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Kind == token.STRING || e.Kind == token.CHAR
	case *ast.BinaryExpr:
		return e.Op == token.ADD && (isString(e.X) || isString(e.Y))
	case *ast.ParenExpr:
		return isString(e.X)
	}
	return false
}

func (g *generator) literal(n *ast.BasicLit) {
	switch n.Kind {
	case token.INT:
		v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
		if err != nil {
			return
		}
		g.add("const-inc", n.Pos(), n.End(), strconv.FormatInt(v+1, 10))
		g.add("const-dec", n.Pos(), n.End(), strconv.FormatInt(v-1, 10))
	case token.FLOAT:
		v, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil {
			return
		}
		g.add("const-inc", n.Pos(), n.End(), floatLit(v+1))
		g.add("const-dec", n.Pos(), n.End(), floatLit(v-1))
	case token.STRING:
		s, err := strconv.Unquote(n.Value)
		if err != nil {
			return
		}
		if s == "" {
			g.add("str-fill", n.Pos(), n.End(), `"mutant"`)
		} else {
			g.add("str-empty", n.Pos(), n.End(), `""`)
		}
	}
}

// floatLit formats v so that it stays a floating-point literal.
func floatLit(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return s
}

// negate wraps a condition in !( ), unless it is already a negation, whose
// removal not-drop covers.
func (g *generator) negate(cond ast.Expr) {
	if isNot(cond) {
		return
	}
	g.add("negate-cond", cond.Pos(), cond.End(), "!("+g.text(cond)+")")
}

// drop removes a statement that can go without breaking the syntax: a
// call, an assignment that declares nothing, ++/--, defer, go and send.
func (g *generator) drop(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ExprStmt, *ast.IncDecStmt, *ast.DeferStmt, *ast.GoStmt, *ast.SendStmt:
	case *ast.AssignStmt:
		if s.Tok == token.DEFINE {
			return
		}
	default:
		return
	}
	g.add("drop", s.Pos(), s.End(), "")
}

// swapStrings swaps adjacent string literal arguments of a call, such as
// the old and new of strings.ReplaceAll.
func (g *generator) swapStrings(c *ast.CallExpr) {
	for i := 0; i+1 < len(c.Args); i++ {
		a, ok1 := c.Args[i].(*ast.BasicLit)
		b, ok2 := c.Args[i+1].(*ast.BasicLit)
		if !ok1 || !ok2 || a.Kind != token.STRING || b.Kind != token.STRING || a.Value == b.Value {
			continue
		}
		g.add("str-swap", a.Pos(), b.End(), b.Value+g.text(&gap{a.End(), b.Pos()})+a.Value)
	}
}

// gap is the text between two nodes, as a node.
type gap struct{ from, to token.Pos }

func (p *gap) Pos() token.Pos { return p.from }
func (p *gap) End() token.Pos { return p.to }
