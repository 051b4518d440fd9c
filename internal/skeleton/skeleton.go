// Package skeleton holds the protocol adapter skeletons that `apexcheck
// init` writes: one per language, each a complete adapter in which one
// marked function runs the tool (a plain `bash -lc` subprocess until a
// porter replaces it). Each is certified by this package's tests against a
// checked-in expectation ledger (ledgers/, format 2: each entry pinned to the
// version of its scenario it was reviewed against; `make skeleton-ledgers`
// repins them), so a skeleton that stops working fails the build.
package skeleton

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// The skeletons live under testdata so that the go tool leaves them alone:
// the Go skeleton is a main package, which `go install ./...` would
// otherwise install as a binary named "go". Tests build and vet the
// generated copy instead.
//
//go:embed testdata
var files embed.FS

// A Skeleton is the adapter of one language.
type Skeleton struct {
	// Lang is the name given to --lang.
	Lang string
	// Files maps each file's name in the output directory to its source
	// under testdata/ (go.mod is stored as go.mod.tmpl, since a go.mod would
	// make its directory another module, which go:embed cannot reach).
	Files map[string]string
	// Adapter is the file the porter edits.
	Adapter string
	// Build, when set, is the command that builds the adapter in its
	// directory; Impl the --impl command line relative to the directory.
	Build string
	Impl  string
}

var skeletons = []Skeleton{
	{Lang: "go", Files: map[string]string{"main.go": "go/main.go", "go.mod": "go/go.mod.tmpl"},
		Adapter: "main.go", Build: "go build -o adapter .", Impl: "adapter"},
	{Lang: "node", Files: map[string]string{"adapter.mjs": "node/adapter.mjs"},
		Adapter: "adapter.mjs", Impl: "node adapter.mjs"},
	{Lang: "python", Files: map[string]string{"adapter.py": "python/adapter.py"},
		Adapter: "adapter.py", Impl: "python3 adapter.py"},
}

// Langs returns the languages there are skeletons for, sorted.
func Langs() []string {
	var out []string
	for _, s := range skeletons {
		out = append(out, s.Lang)
	}
	sort.Strings(out)
	return out
}

// Lookup returns the skeleton for a language.
func Lookup(lang string) (Skeleton, error) {
	for _, s := range skeletons {
		if strings.EqualFold(s.Lang, lang) {
			return s, nil
		}
	}
	return Skeleton{}, fmt.Errorf("no skeleton for language %q (have %s)", lang, strings.Join(Langs(), ", "))
}

// Names returns the names of the files the skeleton writes, sorted.
func (s Skeleton) Names() []string {
	var out []string
	for name := range s.Files {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Content returns the content of one of the skeleton's files.
func (s Skeleton) Content(name string) ([]byte, error) {
	src, ok := s.Files[name]
	if !ok {
		return nil, fmt.Errorf("skeleton %s has no file %s", s.Lang, name)
	}
	return fs.ReadFile(files, path.Join("testdata", src))
}

// ErrExists is wrapped by Write's error when a file it would write exists.
var ErrExists = errors.New("file exists")

// Write writes the skeleton's files into dir, creating dir if needed, and
// returns their paths. It writes nothing when any of them exists already:
// a porter's edited adapter is never overwritten.
func (s Skeleton) Write(dir string) ([]string, error) {
	var paths, exist []string
	for _, name := range s.Names() {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			exist = append(exist, p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("write skeleton: %w", err)
		}
		paths = append(paths, p)
	}
	if len(exist) > 0 {
		return nil, fmt.Errorf("write skeleton: %s: %w; move them away or choose another --dir", strings.Join(exist, ", "), ErrExists)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write skeleton: %w", err)
	}
	for i, name := range s.Names() {
		data, err := s.Content(name)
		if err != nil {
			return nil, fmt.Errorf("write skeleton: %w", err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(string(data), "#!") {
			mode = 0o755
		}
		// O_EXCL: a file created since the check above is not clobbered
		// either.
		f, err := os.OpenFile(paths[i], os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
		if err != nil {
			return nil, fmt.Errorf("write skeleton: %w", err)
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, fmt.Errorf("write skeleton: %w", err)
		}
	}
	return paths, nil
}

// Commands returns the commands that certify the skeleton written into
// dir, as a person types them in the current directory: the build, if any,
// and the apexcheck run. Paths in --impl contain a slash so that apexcheck
// makes them absolute (each scenario starts the adapter in its own work
// directory).
func (s Skeleton) Commands(dir string) []string {
	var out []string
	if s.Build != "" {
		if dir == "." {
			out = append(out, s.Build)
		} else {
			out = append(out, fmt.Sprintf("(cd %s && %s)", shellQuote(dir), s.Build))
		}
	}
	words := strings.Fields(s.Impl)
	last := words[len(words)-1]
	p := filepath.Join(dir, last)
	if !strings.Contains(p, string(filepath.Separator)) {
		p = "." + string(filepath.Separator) + p
	}
	words[len(words)-1] = p
	out = append(out, "apexcheck --impl "+shellQuote(strings.Join(words, " ")))
	return out
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
