package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// Digest identifies a scenario suite: "sha256:" and the hex SHA-256
// over every scenario (*.txtar) and every data file scenarios read (*.json,
// such as the permission corpus) under dir of fsys, subdirectories
// included, sorted by path, each contributing its path relative to dir, a
// NUL, its length in decimal, a NUL and its bytes. Any change to any of
// them, or one added or removed, changes it; nothing else does. Ledgers and
// certificates are pinned to it.
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

// ShortDigest abbreviates a suite digest for people: "sha256:" and 12 hex
// digits.
func ShortDigest(d string) string {
	if len(d) > len("sha256:")+12 {
		return d[:len("sha256:")+12]
	}
	return d
}
