package mutate

import (
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
)

// wrap puts body lines into a function of a small file, from line 5 on.
func wrap(body string) string {
	return "package p\n\nimport \"strings\"\n\nfunc f(a, b int, s string, ok bool, ch chan int) (int, error) {\n" +
		body + "\n\treturn 0, nil\n}\n\nvar _ = strings.ReplaceAll\n"
}

func TestOperators(t *testing.T) {
	tests := []struct {
		body string
		id   string // the mutant under test, line 6 onwards
		want string // the mutated line
	}{
		{"\tx := a + b\n\t_ = x", "f.go:f:arith:0", "\tx := a - b"},
		{"\tx := a - b\n\t_ = x", "f.go:f:arith:0", "\tx := a + b"},
		{"\tx := a * b\n\t_ = x", "f.go:f:arith:0", "\tx := a / b"},
		{"\tx := a % b\n\t_ = x", "f.go:f:arith:0", "\tx := a * b"},
		{"\tx := a &^ b\n\t_ = x", "f.go:f:arith:0", "\tx := a & b"},
		{"\tx := a << b\n\t_ = x", "f.go:f:arith:0", "\tx := a >> b"},
		{"\ta += b", "f.go:f:assign-op:0", "\ta -= b"},
		{"\ta |= b", "f.go:f:assign-op:0", "\ta &= b"},
		{"\tif a < b {\n\t}", "f.go:f:cmp-bound:0", "\tif a <= b {"},
		{"\tif a >= b {\n\t}", "f.go:f:cmp-bound:0", "\tif a > b {"},
		{"\tif a < b {\n\t}", "f.go:f:cmp-negate:0", "\tif a >= b {"},
		{"\tif a == b {\n\t}", "f.go:f:cmp-negate:0", "\tif a != b {"},
		{"\tif a != b && ok {\n\t}", "f.go:f:logic:0", "\tif a != b || ok {"},
		{"\tif !ok {\n\t}", "f.go:f:not-drop:0", "\tif ok {"},
		{"\tif a == b {\n\t}", "f.go:f:negate-cond:0", "\tif !(a == b) {"},
		{"\tfor a < b {\n\t\ta++\n\t}", "f.go:f:negate-cond:0", "\tfor !(a < b) {"},
		{"\tok = true", "f.go:f:bool-flip:0", "\tok = false"},
		{"\ta = 0x10", "f.go:f:const-inc:0", "\ta = 17"},
		{"\ta = 1_000", "f.go:f:const-dec:0", "\ta = 999"},
		{"\tx := 1.5\n\t_ = x", "f.go:f:const-inc:0", "\tx := 2.5"},
		{"\tx := 2.0\n\t_ = x", "f.go:f:const-dec:0", "\tx := 1.0"},
		{"\ta++", "f.go:f:incdec:0", "\ta--"},
		{"\ts = \"x\"", "f.go:f:str-empty:0", "\ts = \"\""},
		{"\ts = `x`", "f.go:f:str-empty:0", "\ts = \"\""},
		{"\ts = \"\"", "f.go:f:str-fill:0", "\ts = \"mutant\""},
		{"\ts = strings.ReplaceAll(s, \"a\", \"b\")", "f.go:f:str-swap:0", "\ts = strings.ReplaceAll(s, \"b\", \"a\")"},
		{"\ta = b", "f.go:f:drop:0", "\t"},
		{"\tch <- a", "f.go:f:drop:0", "\t"},
		{"\tdefer close(ch)", "f.go:f:drop:0", "\t"},
		{"\tvar err error\n\treturn 1, err", "f.go:f:ret-nil-err:0", "\treturn 1, nil"},
		// The second of two sites of one operator in a function has index 1.
		{"\tif a < b && b < a {\n\t}", "f.go:f:cmp-bound:1", "\tif a < b && b <= a {"},
	}
	for _, tt := range tests {
		t.Run(tt.id+" "+strings.TrimSpace(strings.SplitN(tt.body, "\n", 2)[0]), func(t *testing.T) {
			src := []byte(wrap(tt.body))
			ms, err := Generate("f.go", src)
			if err != nil {
				t.Fatal(err)
			}
			var m *Mutant
			for i := range ms {
				if ms[i].ID == tt.id {
					m = &ms[i]
				}
			}
			if m == nil {
				t.Fatalf("no mutant %s among %v", tt.id, ids(ms))
			}
			out := m.Apply(src)
			if _, err := parser.ParseFile(token.NewFileSet(), "f.go", out, 0); err != nil {
				t.Fatalf("mutant does not parse: %v\n%s", err, out)
			}
			got := strings.Split(string(out), "\n")[m.Line-1]
			if got != tt.want {
				t.Errorf("line %d = %q, want %q", m.Line, got, tt.want)
			}
			// Everything but the mutated range is untouched.
			if string(out[:m.Start]) != string(src[:m.Start]) || string(out[m.Start+len(m.New):]) != string(src[m.End:]) {
				t.Errorf("the mutant changed more than its range")
			}
		})
	}
}

// TestSkipped lists sites the mutator must leave alone: imports, string
// concatenation (whose - would not compile), declarations that := makes
// (whose removal would not compile), and double negation.
func TestSkipped(t *testing.T) {
	tests := []struct{ body, op string }{
		{"\ts = s + \"x\"", "arith"},
		{"\ts = \"x\" + (\"y\" + s)", "arith"},
		{"\tx := a\n\t_ = x", "drop"},
		{"\tif !ok {\n\t}", "negate-cond"},
		{"\treturn a, nil", "ret-nil-err"},
	}
	for _, tt := range tests {
		ms, err := Generate("f.go", []byte(wrap(tt.body)))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Op == tt.op && m.Line == 6 {
				t.Errorf("%q: unexpected mutant %s (%s)", tt.body, m.ID, m.Describe())
			}
		}
	}
	ms, err := Generate("f.go", []byte(wrap("")))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Line == 3 {
			t.Errorf("import mutated: %s", m.ID)
		}
	}
}

// TestStableIDs checks that IDs depend on the source alone and name a
// site by its function, not its line: generating twice gives the same list,
// every ID is unique, and an unrelated edit above a function (lines added
// to another function, a new declaration) leaves the IDs of its mutants
// and the changes they name as they were.
func TestStableIDs(t *testing.T) {
	const fn = "func f(a, b int, s string, ok bool) int {\n\tif a < b && s != \"\" {\n\t\ta++\n\t}\n\tok = !ok\n\treturn a\n}\n"
	const other = "func g(x int) int {\n\treturn x + 1\n}\n"
	const edited = "// g got longer.\nfunc g(x int) int {\n\tif x > 2 {\n\t\tx--\n\t}\n\treturn x + 1\n}\n\nvar limit = 3 * 4\n\ntype T struct{}\n\nfunc (t *T) f() bool { return true }\n"
	src := []byte("package p\n\n" + other + "\n" + fn)
	first, err := Generate("f.go", src)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := Generate("f.go", src)
	if strings.Join(ids(first), " ") != strings.Join(ids(second), " ") {
		t.Fatalf("IDs differ between two runs:\n%v\n%v", ids(first), ids(second))
	}
	seen := map[string]bool{}
	for _, m := range first {
		if seen[m.ID] {
			t.Errorf("duplicate ID %s", m.ID)
		}
		seen[m.ID] = true
		if want := strings.Join([]string{"f.go", m.Func, m.Op, strconv.Itoa(m.Index)}, ":"); m.ID != want {
			t.Errorf("ID %s, want %s", m.ID, want)
		}
	}
	third, err := Generate("f.go", []byte("package p\n\n"+edited+"\n"+fn))
	if err != nil {
		t.Fatal(err)
	}
	inF := func(ms []Mutant) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			if m.Func == "f" {
				out[m.ID] = m.Describe()
			}
		}
		return out
	}
	a, b := inF(first), inF(third)
	if len(a) == 0 || len(a) != len(b) {
		t.Fatalf("editing above f changed f's mutants: %v vs %v", a, b)
	}
	for id, d := range a {
		if b[id] != d {
			t.Errorf("editing above f: %s was %q, is %q", id, d, b[id])
		}
	}
	moved := false
	for _, m := range third {
		if m.Func == "f" && m.Line != first[0].Line {
			moved = true
		}
	}
	if !moved {
		t.Errorf("the edit did not move f's lines, so it proves nothing")
	}
	// Methods are named Type.Method, package-level declarations "-".
	funcs := map[string]bool{}
	for _, m := range third {
		funcs[m.Func] = true
	}
	for _, want := range []string{"f", "g", "-", "T.f"} {
		if !funcs[want] {
			t.Errorf("no mutant in %q; functions: %v", want, funcs)
		}
	}
}

// TestDeclNames checks the function part of IDs: receivers lose their
// pointer and type parameters, and a name declared twice (init) is told
// apart by #2.
func TestDeclNames(t *testing.T) {
	src := "package p\n\ntype L[T any] struct{ n int }\n\nfunc (l *L[T]) Len() bool { return true }\n\nfunc (l L[T]) Get() bool { return false }\n\nfunc init() { _ = true }\n\nfunc init() { _ = false }\n\nconst k = 1\n"
	ms, err := Generate("f.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, m := range ms {
		got[m.ID] = true
	}
	for _, want := range []string{"f.go:L.Len:bool-flip:0", "f.go:L.Get:bool-flip:0", "f.go:init:bool-flip:0", "f.go:init#2:bool-flip:0", "f.go:-:const-inc:0"} {
		if !got[want] {
			t.Errorf("no mutant %s among %v", want, ids(ms))
		}
	}
}

func TestEveryOperatorIsDocumented(t *testing.T) {
	src := []byte(wrap("\tx := a + b\n\t_ = x\n\ta += 1\n\tif a < b || !ok {\n\t\ta++\n\t}\n\ts = \"\"\n\ts = strings.ReplaceAll(\"a\", \"b\", \"c\")\n\tok = true\n\tx2 := 1.5\n\t_ = x2\n\tvar err error\n\treturn 0, err"))
	ms, err := Generate("f.go", src)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if _, ok := Operators[m.Op]; !ok {
			t.Errorf("operator %q of %s is not in Operators", m.Op, m.ID)
		}
		seen[m.Op] = true
	}
	for op := range Operators {
		if !seen[op] {
			t.Errorf("operator %q made no mutant of a file that has its site", op)
		}
	}
}

func ids(ms []Mutant) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}
