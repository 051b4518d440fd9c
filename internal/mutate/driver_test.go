package mutate

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAreasExist checks that every package of ref/ has an area and every
// area names scenarios that exist, so no mutant runs against nothing.
func TestAreasExist(t *testing.T) {
	root := filepath.Join("..", "..")
	dirs, err := os.ReadDir(filepath.Join(root, "ref"))
	if err != nil {
		t.Fatal(err)
	}
	// ref/internal holds packages shared by the others, one level down.
	inner, err := os.ReadDir(filepath.Join(root, "ref", "internal"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var pkgs []string
	for _, d := range dirs {
		if d.IsDir() && d.Name() != "internal" {
			pkgs = append(pkgs, "ref/"+d.Name())
		}
	}
	for _, d := range inner {
		if d.IsDir() {
			pkgs = append(pkgs, "ref/internal/"+d.Name())
		}
	}
	for _, p := range pkgs {
		if _, ok := Areas[p]; !ok {
			t.Errorf("%s has no area in Areas", p)
		}
	}
	scripts, err := os.ReadDir(filepath.Join(root, "testdata", "scripts"))
	if err != nil {
		t.Fatal(err)
	}
	for pkg, area := range Areas {
		re := regexp.MustCompile(area)
		n := 0
		for _, s := range scripts {
			if re.MatchString(strings.TrimSuffix(s.Name(), ".txtar")) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("area %q of %s matches no scenario", area, pkg)
		}
	}
}

func TestScenariosAddsTriagedScenario(t *testing.T) {
	r := &Runner{cfg: Config{Triage: Triage{
		"ref/call/call.go:1:drop:0": {Scenario: "bg_x.y"},
		"ref/call/call.go:2:drop:0": {Equivalent: true, Reason: "r"},
	}}}
	for _, tt := range []struct{ id, want string }{
		{"ref/call/call.go:1:drop:0", `(^call_)|^bg_x\.y$`},
		{"ref/call/call.go:2:drop:0", `^call_`},
		{"ref/call/call.go:3:drop:0", `^call_`},
	} {
		if got := r.Scenarios(Mutant{ID: tt.id, File: "ref/call/call.go"}); got != tt.want {
			t.Errorf("Scenarios(%s) = %q, want %q", tt.id, got, tt.want)
		}
	}
}

// TestCollectSample checks that -max samples the same mutants for the same
// seed, in ID order, and others for another seed.
func TestCollectSample(t *testing.T) {
	root := filepath.Join("..", "..")
	cfg := Config{Root: root, Packages: []string{"ref/call"}, Max: 10, Seed: 1}
	a, err := Collect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Collect(cfg)
	cfg.Seed = 2
	c, _ := Collect(cfg)
	if len(a["ref/call"]) != 10 {
		t.Fatalf("sampled %d mutants, want 10", len(a["ref/call"]))
	}
	ja, jb, jc := strings.Join(ids(a["ref/call"]), " "), strings.Join(ids(b["ref/call"]), " "), strings.Join(ids(c["ref/call"]), " ")
	if ja != jb {
		t.Errorf("the same seed sampled differently:\n%s\n%s", ja, jb)
	}
	if ja == jc {
		t.Errorf("seeds 1 and 2 sampled the same mutants")
	}
	for _, m := range a["ref/call"] {
		if strings.HasSuffix(m.File, "_test.go") {
			t.Errorf("mutant of a test file: %s", m.ID)
		}
	}
}
