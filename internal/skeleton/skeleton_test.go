package skeleton

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCommands(t *testing.T) {
	tests := []struct {
		lang, dir string
		want      []string
	}{
		// A bare file name gets ./ so that apexcheck makes it absolute.
		{"python", ".", []string{"apexcheck --impl 'python3 ./adapter.py'"}},
		{"python", "adapter", []string{"apexcheck --impl 'python3 adapter/adapter.py'"}},
		{"node", "/abs/x", []string{"apexcheck --impl 'node /abs/x/adapter.mjs'"}},
		{"go", ".", []string{"go build -o adapter .", "apexcheck --impl ./adapter"}},
		{"go", "my dir", []string{"(cd 'my dir' && go build -o adapter .)", "apexcheck --impl 'my dir/adapter'"}},
	}
	for _, tt := range tests {
		sk, err := Lookup(tt.lang)
		if err != nil {
			t.Fatal(err)
		}
		if got := sk.Commands(tt.dir); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s in %q: %q, want %q", tt.lang, tt.dir, got, tt.want)
		}
	}
	if _, err := Lookup("cobol"); err == nil || !strings.Contains(err.Error(), "go, node, python") {
		t.Errorf("Lookup(cobol): %v", err)
	}
}

func TestWriteRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	sk, _ := Lookup("go")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sk.Write(dir); !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "main.go") {
		t.Fatalf("Write: %v", err)
	}
	// Nothing at all is written when one file exists.
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("go.mod was written beside an existing main.go: %v", err)
	}
	paths, err := sk.Write(filepath.Join(dir, "new", "sub"))
	if err != nil || len(paths) != 2 {
		t.Fatalf("Write into a new directory: %v %v", paths, err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, "new", "sub", "go.mod"))
	if !strings.HasPrefix(string(data), "module ") {
		t.Errorf("go.mod: %q", data)
	}
}

// TestExecutable checks that the scripts with a shebang can be run
// directly.
func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	for _, lang := range Langs() {
		sk, _ := Lookup(lang)
		paths, err := sk.Write(filepath.Join(dir, lang))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			fi, _ := os.Stat(p)
			data, _ := os.ReadFile(p)
			if exec := fi.Mode()&0o111 != 0; exec != strings.HasPrefix(string(data), "#!") {
				t.Errorf("%s: mode %v", p, fi.Mode())
			}
		}
	}
}
