package broken_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/conformance/verdict"
	"github.com/apexcheck/apexcheck/internal/broken"
)

// withoutVariant is the honest state of the kit: the MUST clauses of spec/
// that no broken variant breaks yet, so that no run proves the suite would
// catch a port that gets them wrong. It only shrinks: a clause that gains a
// variant must leave it (TestEveryMustClauseHasAVariant fails until it
// does), and a new MUST clause must come with a variant, not onto this
// list. docs/mutation.md ("Realistic defects") says why each is left.
var withoutVariant = []string{
	// path-probe.md
	"PATH-24",
	// permissions.md
	"PERM-18",
}

// TestEveryMustClauseHasAVariant checks that every MUST clause of spec/ is
// broken by at least one variant, or is on withoutVariant, and that the
// list holds no clause that has one. Its log is the coverage: how many MUST
// clauses have a realistic defect the suite is proved to catch, and which
// do not.
func TestEveryMustClauseHasAVariant(t *testing.T) {
	clauses, err := suite.LoadClauses(apexcheck.Spec)
	if err != nil {
		t.Fatal(err)
	}
	must := verdict.MustClauses(clauses)
	byClause := map[string][]string{}
	var unrecorded []string
	for _, name := range broken.Names() {
		v := broken.Variants[name]
		switch {
		case v.Clause == "":
			unrecorded = append(unrecorded, name)
		case !must[v.Clause]:
			t.Errorf("variant %s names %s, which is not a MUST clause of spec/", name, v.Clause)
		default:
			byClause[v.Clause] = append(byClause[v.Clause], name)
		}
	}
	listed := map[string]bool{}
	for _, id := range withoutVariant {
		switch {
		case listed[id]:
			t.Errorf("withoutVariant lists %s twice", id)
		case !must[id]:
			t.Errorf("withoutVariant lists %s, which is not a MUST clause of spec/", id)
		case len(byClause[id]) > 0:
			t.Errorf("%s has a variant now (%s): remove it from withoutVariant", id, strings.Join(byClause[id], ", "))
		}
		listed[id] = true
	}
	var missing []string
	for _, c := range clauses {
		if must[c.ID] && len(byClause[c.ID]) == 0 && !listed[c.ID] {
			missing = append(missing, c.ID)
		}
	}
	if len(missing) > 0 {
		t.Errorf("MUST clauses with no variant and not on withoutVariant: %s\n"+
			"write a variant for each (internal/broken/<area>.go, with its Clause); the list only shrinks",
			strings.Join(missing, " "))
	}
	sort.Strings(unrecorded)
	t.Logf("%d MUST clauses: %d with a variant, %d without", len(must), len(must)-len(withoutVariant), len(withoutVariant))
	t.Logf("without a variant: %s", strings.Join(withoutVariant, " "))
	if len(unrecorded) > 0 {
		t.Logf("variants that record no clause (%d): %s", len(unrecorded), strings.Join(unrecorded, " "))
	}
}
