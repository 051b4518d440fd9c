package broken_test

import (
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/internal/broken"
	"github.com/apexcheck/apexcheck/internal/roles"
)

// TestMain makes the test binary serve a variant when asked to, and play
// the helpers the runner re-executes it as (fake login shells and the
// like, conformance Config.SelfExe).
func TestMain(m *testing.M) {
	roles.Dispatch()
	if len(os.Args) > 2 && os.Args[1] == "broken" {
		os.Exit(broken.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// bound is short so hanging variants are caught quickly; every scenario the
// variants run answers in well under a second on the reference.
const bound = 10 * time.Second

// TestVariantsAreCaught runs each variant against the scenarios that must
// catch it and requires at least one to fail or error, with none passing
// that the reference passes only by being right... and the whole run
// finishing in bounded time.
func TestVariantsAreCaught(t *testing.T) {
	for _, name := range broken.Names() {
		v := broken.Variants[name]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			// A selection that names no scenario would fail the run at
			// once, which reads like a variant caught at the handshake.
			if !selectsScenario(t, v.Scenarios) {
				t.Fatalf("variant %q selects no scenario with %q", name, v.Scenarios)
			}
			sel, narrowed := citing(t, v.Scenarios, v.Clause)
			if narrowed && caughtOutsideClause[name] {
				// The ratchet: a listed variant that the scenarios citing
				// its clause catch now has a gap closed, and must leave
				// the list, or the list would only ever grow stale.
				if results, err := runVariant(name, sel); err == nil && len(caughtIn(results)) > 0 {
					t.Errorf("variant %q is caught by the scenarios citing %s now (%s): remove it from caughtOutsideClause",
						name, v.Clause, strings.Join(caughtIn(results), ", "))
					return
				}
				sel = regexp.MustCompile(v.Scenarios)
			}
			start := time.Now()
			quiet.RLock()
			results, err := runVariant(name, sel)
			quiet.RUnlock()
			if err == nil && len(caughtIn(results)) == 0 && inconclusiveIn(results) {
				// The machine, busy with the other variants, could not
				// tell: run it again alone.
				t.Logf("inconclusive beside the other variants: run again alone")
				quiet.Lock()
				results, err = runVariant(name, sel)
				quiet.Unlock()
			}
			elapsed := time.Since(start)
			if err != nil {
				// A variant that cannot even complete the handshake is caught
				// by the handshake itself, which must fail within the bound.
				if elapsed > 3*bound {
					t.Fatalf("handshake failure took %v", elapsed)
				}
				t.Logf("caught at handshake: %v", err)
				return
			}
			caught := 0
			for _, r := range results {
				if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
					caught++
					t.Logf("%s %s: %s", r.Outcome, r.Scenario.Name, firstLine(r.Message))
				}
			}
			if caught == 0 {
				t.Errorf("variant %q (%s) passed every selected scenario", name, v.Defect)
			}
			// What is checked is that the run ends (a hang never would), not
			// how fast: each wait is bounded by `bound`, a scenario makes a
			// few waits, and on a loaded 2-core machine the honest work of a
			// variant (a gigabyte of output for the memory one) can itself
			// take tens of seconds. Hence the generous multiple.
			if limit := time.Duration(len(results)+2) * 4 * bound; elapsed > limit {
				t.Errorf("run took %v, more than %v", elapsed, limit)
			}
		})
	}
}

// runVariant runs the scenarios sel selects against the variant name.
func runVariant(name string, sel *regexp.Regexp) ([]suite.Result, error) {
	return conformance.Run(conformance.Config{
		Impl:    []string{os.Args[0], "broken", name},
		Scripts: apexcheck.Scripts,
		Dir:     ".",
		Run:     sel,
		Bound:   bound,
		SelfExe: os.Args[0],
	})
}

// quiet is held shared by every variant's run and alone by the rerun of a
// variant whose scenarios the machine left inconclusive: a scenario whose
// verdict a time bound decides fails an implementation only on evidence
// that the machine had a CPU to spare (the bound command, await
// -since-exit), which the other variants, run at once, take away.
var quiet sync.RWMutex

// inconclusiveIn reports whether any of results is inconclusive.
func inconclusiveIn(results []suite.Result) bool {
	for _, r := range results {
		if r.Outcome == suite.Inconclusive {
			return true
		}
	}
	return false
}

// caughtIn names the scenarios of results that failed or errored.
func caughtIn(results []suite.Result) []string {
	var names []string
	for _, r := range results {
		if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
			names = append(names, r.Scenario.Name)
		}
	}
	return names
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestControlsPass runs each control, an implementation the variants are
// built from with no defect, against its scenarios and requires every one
// to pass: a variant made from a control is then caught for its defect,
// not for a difference of the control's.
func TestControlsPass(t *testing.T) {
	for name, v := range broken.Controls {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			results, err := conformance.Run(conformance.Config{
				Impl:    []string{os.Args[0], "broken", name},
				Scripts: apexcheck.Scripts,
				Dir:     ".",
				Run:     regexp.MustCompile(v.Scenarios),
				Bound:   bound,
				SelfExe: os.Args[0],
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(results) == 0 {
				t.Fatalf("no scenario matches %s", v.Scenarios)
			}
			t.Logf("%d scenarios", len(results))
			for _, r := range results {
				if r.Outcome == suite.Failed || r.Outcome == suite.Errored {
					t.Errorf("%s %s: %s", r.Outcome, r.Scenario.Name, r.Message)
				}
			}
		})
	}
}

// selectsScenario reports whether the regexp re matches the name of a
// scenario of the suite.
func selectsScenario(t *testing.T, re string) bool {
	names, err := fs.Glob(apexcheck.Scripts, "*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	sel := regexp.MustCompile(re)
	for _, n := range names {
		if sel.MatchString(strings.TrimSuffix(n, ".txtar")) {
			return true
		}
	}
	return false
}

// citing narrows a variant's selection re to the scenarios that cite its
// clause (narrowed): the defect breaks that clause, so a scenario proving
// the clause must catch it, and the other scenarios of the selection (a
// whole area, often) only cost time: narrowed, the package runs about 800
// scenarios instead of 7,900. A selection that holds no scenario citing
// the clause is kept whole. A variant on caughtOutsideClause is run on its
// whole selection after the narrowed one has failed to catch it.
func citing(t *testing.T, re, clause string) (sel *regexp.Regexp, narrowed bool) {
	t.Helper()
	scenarios, err := loadScenarios()
	if err != nil {
		t.Fatal(err)
	}
	sel = regexp.MustCompile(re)
	var names []string
	for _, sc := range scenarios {
		if !sel.MatchString(sc.Name) {
			continue
		}
		for _, c := range sc.Clauses {
			if c == clause {
				names = append(names, regexp.QuoteMeta(sc.Name))
				break
			}
		}
	}
	if len(names) == 0 {
		return sel, false
	}
	return regexp.MustCompile("^(" + strings.Join(names, "|") + ")$"), true
}

// caughtOutsideClause lists the variants that no scenario citing their
// clause catches, only another scenario of their selection: each keeps its
// whole selection. Each is a gap in the citations to close, by citing the
// clause in the scenario that catches the defect where it proves it, or by
// a scenario of the clause that does, and then by removing it here
// (TestVariantsAreCaught fails for a listed variant the scenarios citing
// its clause catch).
var caughtOutsideClause = map[string]bool{}

// loadScenarios parses the suite once for every variant.
var loadScenarios = sync.OnceValues(func() ([]suite.Scenario, error) {
	return suite.LoadScenarios(apexcheck.Scripts, ".")
})
