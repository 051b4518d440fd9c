package suite

import (
	"io/fs"
	"slices"
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

// scenarioSuite is a small suite tree: three scenarios, two of them
// reading a data file, the data files, and a file no digest covers.
func scenarioSuite() fstest.MapFS {
	return fstest.MapFS{
		"scripts/exec_a.txtar":         {Data: []byte("# a\n# clauses: EXEC-1\n\nexec true\n")},
		"scripts/exec_b.txtar":         {Data: []byte("# b\n# clauses: EXEC-3\n\npermcorpus commands.json\n")},
		"scripts/exec_c.txtar":         {Data: []byte("# c\n# clauses: EXEC-2\n\npermcorpus -local bypass-commands.json\n")},
		"permissions/commands.json":    {Data: []byte("[]\n")},
		"permissions/README.md":        {Data: []byte("not digested\n")},
		"scripts/bypass-commands.json": {Data: []byte("[]\n")},
	}
}

// scenarioDigests returns the scenario digests of a suite tree, or fails t.
func scenarioDigests(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	d, err := ScenarioDigests(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestScenarioDigests(t *testing.T) {
	fsys := scenarioSuite()
	before := scenarioDigests(t, fsys)
	if len(before) != 3 {
		t.Fatalf("digests %v, want 3", before)
	}
	// exec_a reads nothing besides itself: its digest is Digest of a
	// tree holding it alone.
	alone, err := Digest(fstest.MapFS{"scripts/exec_a.txtar": fsys["scripts/exec_a.txtar"]}, ".")
	if err != nil || before["exec_a"] != alone {
		t.Errorf("exec_a digest %s, want %s (%v)", before["exec_a"], alone, err)
	}
	tests := []struct {
		name    string
		edit    func(fstest.MapFS)
		changed []string
	}{
		{"a scenario", func(f fstest.MapFS) {
			f["scripts/exec_a.txtar"] = &fstest.MapFile{Data: []byte("# a\n# clauses: EXEC-1\n\nexec false\n")}
		}, []string{"exec_a"}},
		{"a data file one names", func(f fstest.MapFS) { f["permissions/commands.json"] = &fstest.MapFile{Data: []byte("[{}]\n")} }, []string{"exec_b"}},
		// exec_c names bypass-commands.json, which is not commands.json.
		{"a data file named only as part of another name", func(f fstest.MapFS) {
			f["scripts/bypass-commands.json"] = &fstest.MapFile{Data: []byte("[{}]\n")}
		}, []string{"exec_c"}},
		{"a file the suite digest ignores", func(f fstest.MapFS) { f["permissions/README.md"] = &fstest.MapFile{Data: []byte("edited\n")} }, nil},
		{"a new scenario", func(f fstest.MapFS) { f["scripts/exec_z.txtar"] = &fstest.MapFile{Data: []byte("# z\n")} }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := scenarioSuite()
			tt.edit(f)
			after := scenarioDigests(t, f)
			var changed []string
			for name, d := range before {
				if after[name] != d {
					changed = append(changed, name)
				}
			}
			slices.Sort(changed)
			if !slices.Equal(changed, tt.changed) {
				t.Errorf("changed %v, want %v", changed, tt.changed)
			}
		})
	}
}
