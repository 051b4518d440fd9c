package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Digest identifies a scenario suite: "sha256:" and the hex SHA-256
// over every scenario (*.txtar) and every data file scenarios read (*.json,
// such as the permission corpus) under dir of fsys, subdirectories
// included, sorted by path, each contributing its path relative to dir, a
// NUL, its length in decimal, a NUL and its bytes. Any change to any of
// them, or one added or removed, changes it; nothing else does.
// Certificates are pinned to it; ledger entries to the same digest over
// their scenario alone (ScenarioDigests).
func Digest(fsys fs.FS, dir string) (string, error) {
	var names []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".txtar") || strings.HasSuffix(p, ".json")) {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("suite digest: %w", err)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", fmt.Errorf("suite digest: %w", err)
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(n, dir), "/")
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(data))
		h.Write(data)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// ScenarioDigests returns the digest of every scenario (*.txtar) under dir
// of fsys, by name, as a ledger entry pins it: Digest computed over
// the scenario's file and the suite's data files (*.json, such as the
// permission corpus) that the scenario names by their file name, each
// contributing its path relative to dir as in Digest. An edit to a
// scenario, or to a data file it reads, changes its digest; nothing else
// does.
func ScenarioDigests(fsys fs.FS, dir string) (map[string]string, error) {
	var scenarios, data []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
		case strings.HasSuffix(p, ".txtar"):
			scenarios = append(scenarios, p)
		case strings.HasSuffix(p, ".json"):
			data = append(data, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scenario digests: %w", err)
	}
	// A data file is named as a word of its own: bypass-commands.json does
	// not name commands.json.
	named := make([]*regexp.Regexp, len(data))
	for i, d := range data {
		named[i] = regexp.MustCompile(`(^|[\s'"/])` + regexp.QuoteMeta(path.Base(d)) + `($|[\s'"])`)
	}
	out := make(map[string]string, len(scenarios))
	for _, p := range scenarios {
		text, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("scenario digests: %w", err)
		}
		keep := map[string]bool{p: true}
		for i, d := range data {
			if named[i].Match(text) {
				keep[d] = true
			}
		}
		digest, err := Digest(onlyFS{fsys, withParents(keep)}, dir)
		if err != nil {
			return nil, fmt.Errorf("scenario digests: %w", err)
		}
		name := strings.TrimSuffix(path.Base(p), ".txtar")
		if _, twice := out[name]; twice {
			return nil, fmt.Errorf("scenario digests: two scenarios are named %s", name)
		}
		out[name] = digest
	}
	return out, nil
}

// withParents adds to a set of file paths every directory above them.
func withParents(files map[string]bool) map[string]bool {
	out := map[string]bool{}
	for p := range files {
		out[p] = true
		for d := path.Dir(p); d != "." && d != "/" && !out[d]; d = path.Dir(d) {
			out[d] = true
		}
	}
	return out
}

// onlyFS is fsys showing only the paths in keep when listing directories,
// so that Digest over it digests exactly those files.
type onlyFS struct {
	fsys fs.FS
	keep map[string]bool
}

func (o onlyFS) Open(name string) (fs.File, error) { return o.fsys.Open(name) }

func (o onlyFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(o.fsys, name)
	var out []fs.DirEntry
	for _, e := range entries {
		if o.keep[path.Join(name, e.Name())] {
			out = append(out, e)
		}
	}
	return out, err
}

// ShortDigest abbreviates a suite digest for people: "sha256:" and 12 hex
// digits.
func ShortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}
