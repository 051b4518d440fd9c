package suite

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestSuiteDigest(t *testing.T) {
	fsys := fstest.MapFS{
		"s/a.txtar":  {Data: []byte("one")},
		"s/b.txtar":  {Data: []byte("two")},
		"s/notes.md": {Data: []byte("ignored")},
	}
	d1, err := Digest(fsys, "s")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(d1, "sha256:") || len(d1) != len("sha256:")+64 {
		t.Fatalf("digest %q", d1)
	}
	fsys["s/notes.md"] = &fstest.MapFile{Data: []byte("changed")}
	if d, _ := Digest(fsys, "s"); d != d1 {
		t.Errorf("a non-scenario file changed the digest")
	}
	// Moving bytes between files must change it: names and lengths count.
	fsys["s/a.txtar"] = &fstest.MapFile{Data: []byte("onet")}
	fsys["s/b.txtar"] = &fstest.MapFile{Data: []byte("wo")}
	if d, _ := Digest(fsys, "s"); d == d1 {
		t.Errorf("moving bytes between scenarios kept the digest")
	}
	delete(fsys, "s/b.txtar")
	if d, _ := Digest(fsys, "s"); d == d1 {
		t.Errorf("removing a scenario kept the digest")
	}
	// Data that scenarios read decides outcomes too.
	d2, _ := Digest(fsys, "s")
	fsys["s/corpus/rules.json"] = &fstest.MapFile{Data: []byte("[]")}
	if d, _ := Digest(fsys, "s"); d == d2 {
		t.Errorf("adding a data file kept the digest")
	}
}
