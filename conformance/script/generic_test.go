package script

import "testing"

func TestLookup(t *testing.T) {
	root, _ := toGeneric(map[string]any{"a": map[string]any{"b": []any{1, "x", nil}}})
	for path, want := range map[string]string{"a.b.0": "1", "a.b.1": `"x"`, "a.b.2": "null"} {
		v, ok := lookup(root, path)
		if !ok || mustJSON(v) != want {
			t.Errorf("lookup(%s) = %v, %v; want %s", path, v, ok, want)
		}
	}
	for _, path := range []string{"a.c", "a.b.3", "a.b.x", "a.b.0.z"} {
		if _, ok := lookup(root, path); ok {
			t.Errorf("lookup(%s) found a value", path)
		}
	}
}
