package mutate

import (
	"fmt"
	"io"
	"sort"
	"time"
)

// MinKillRate is the lowest acceptable share of non-equivalent mutants
// that the scenarios kill.
const MinKillRate = 0.95

// Tally counts the outcomes of one package's mutants.
type Tally struct {
	Mutants, Uncompilable    int
	Inconclusive             int // neither killed nor survived: rerun on a quieter machine
	Killed, TimedOut         int // TimedOut (at the time or the memory bound) is part of Killed
	Survived                 int
	Equivalent               int // survivors triaged equivalent
	Untriaged, StaleScenario int // survivors not triaged, or triaged as killed by a scenario that does not kill them
	Missing                  int // survivors triaged as killed by no scenario yet: open, counted against the kill rate
	Build, Run               time.Duration
}

// KillRate is the share of non-equivalent compiled mutants that were
// killed; 1 when there are none.
func (t Tally) KillRate() float64 {
	n := t.Killed + t.Survived - t.Equivalent
	if n <= 0 {
		return 1
	}
	return float64(t.Killed) / float64(n)
}

// Summary is the outcome of a mutation run, judged against a triage list.
type Summary struct {
	ByPackage map[string]*Tally
	Total     Tally
	// Survivors are the surviving mutants, with their verdicts when
	// triaged.
	Survivors []Survivor
	// Inconclusive are the mutants the machine left undecided.
	Inconclusive []Result
}

// Survivor is a surviving mutant and its triage.
type Survivor struct {
	Result  Result
	Verdict Verdict
	// Triaged is false when the triage list does not name the mutant.
	Triaged bool
}

// Summarize tallies results per package and matches survivors with the
// triage list.
func Summarize(results []Result, triage Triage) Summary {
	s := Summary{ByPackage: map[string]*Tally{}}
	sort.SliceStable(results, func(i, j int) bool { return lessID(results[i].Mutant, results[j].Mutant) })
	for _, r := range results {
		pkg := pkgOf(r.Mutant.File)
		t := s.ByPackage[pkg]
		if t == nil {
			t = &Tally{}
			s.ByPackage[pkg] = t
		}
		for _, t := range []*Tally{t, &s.Total} {
			t.Mutants++
			t.Build += r.Build
			t.Run += r.Run
			switch r.Status {
			case Uncompilable:
				t.Uncompilable++
			case Inconclusive:
				t.Inconclusive++
			case Killed:
				t.Killed++
			case TimedOut, OverMemory:
				t.Killed++
				t.TimedOut++
			case Survived:
				t.Survived++
			}
		}
		if r.Status == Inconclusive {
			s.Inconclusive = append(s.Inconclusive, r)
		}
		if r.Status != Survived {
			continue
		}
		v, ok := triage[r.Mutant.ID]
		s.Survivors = append(s.Survivors, Survivor{Result: r, Verdict: v, Triaged: ok})
		for _, t := range []*Tally{t, &s.Total} {
			switch {
			case !ok:
				t.Untriaged++
			case v.Equivalent:
				t.Equivalent++
			case v.Missing:
				t.Missing++
			default:
				t.StaleScenario++
			}
		}
	}
	return s
}

// OK reports whether the run passes: no untriaged survivor, no survivor
// that its triage says a scenario kills, no mutant left inconclusive (its
// fate is unknown), and a kill rate of at least MinKillRate in total.
func (s Summary) OK() bool {
	return s.Total.Untriaged == 0 && s.Total.StaleScenario == 0 && s.Total.Inconclusive == 0 &&
		s.Total.KillRate() >= MinKillRate
}

// Write prints the per-package table and every survivor.
func (s Summary) Write(w io.Writer) {
	pkgs := make([]string, 0, len(s.ByPackage))
	for p := range s.ByPackage {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	fmt.Fprintf(w, "%-16s %7s %7s %7s %7s %7s %7s %7s %9s %9s\n",
		"package", "mutants", "nobuild", "killed", "timeout", "survive", "equiv", "open", "killrate", "s/mutant")
	row := func(name string, t *Tally) {
		per := time.Duration(0)
		if n := t.Mutants; n > 0 {
			per = (t.Build + t.Run) / time.Duration(n)
		}
		fmt.Fprintf(w, "%-16s %7d %7d %7d %7d %7d %7d %7d %8.1f%% %9.1f\n",
			name, t.Mutants, t.Uncompilable, t.Killed, t.TimedOut, t.Survived, t.Equivalent,
			t.Untriaged+t.StaleScenario+t.Missing, 100*t.KillRate(), per.Seconds())
	}
	for _, p := range pkgs {
		row(p, s.ByPackage[p])
	}
	row("total", &s.Total)
	fmt.Fprintln(w, "(killrate: killed / (killed + survived - equivalent); timeout, at the time or memory bound, is part of killed; nobuild is skipped)")
	if n := s.Total.Inconclusive; n > 0 {
		fmt.Fprintf(w, "%d mutant(s) inconclusive: the machine missed a time bound in every attempt, so they count neither way; rerun them (-id) on a quieter machine:\n", n)
		for _, r := range s.Inconclusive {
			fmt.Fprintf(w, "  %s\n", r.Mutant.ID)
		}
	}
	if len(s.Survivors) == 0 {
		return
	}
	fmt.Fprintln(w, "\nsurvivors:")
	for _, sv := range s.Survivors {
		m := sv.Result.Mutant
		state := "UNTRIAGED"
		switch {
		case sv.Triaged && sv.Verdict.Equivalent:
			state = "equivalent: " + sv.Verdict.Reason
		case sv.Triaged && sv.Verdict.Missing:
			state = "MISSING SCENARIO (open): " + sv.Verdict.Reason
		case sv.Triaged:
			state = "STILL SURVIVES, though triaged as killed by " + sv.Verdict.Scenario
		}
		fmt.Fprintf(w, "  %s  %s\n      %s\n", m.ID, m.Describe(), state)
	}
}
