package suite

import "fmt"

// Profile names a set of clauses and the scenarios that certify them. The
// kit has two, nested:
//
//   - Apex, the default, is the whole contract of apex-code's bash tool:
//     every clause and every scenario, exact wording included.
//   - Core is what every agent's shell tool should do whatever its wording:
//     the clauses marked core in their header (`(MUST; core; seed …)`),
//     certified by the scenarios marked core in theirs (`# profile: core`),
//     which check behaviour — what runs, what dies, what the result
//     carries — and never apex's texts.
//
// Every core clause and core scenario is also part of Apex.
type Profile string

// The profiles.
const (
	Apex Profile = "apex"
	Core Profile = "core"
)

// Profiles lists the profiles, the default first.
var Profiles = []Profile{Apex, Core}

// ParseProfile parses a profile name; the empty string is Apex.
func ParseProfile(s string) (Profile, error) {
	switch Profile(s) {
	case "", Apex:
		return Apex, nil
	case Core:
		return Core, nil
	}
	return "", fmt.Errorf("profile %q: want apex or core", s)
}

// OrDefault returns p, or Apex when p is empty: a report or ledger written
// before profiles existed covers the whole contract.
func (p Profile) OrDefault() Profile {
	if p == "" {
		return Apex
	}
	return p
}

// HasScenario reports whether s belongs to the profile: every scenario
// belongs to Apex; only those whose header says `# profile: core` to Core.
func (p Profile) HasScenario(s Scenario) bool {
	if p.OrDefault() == Apex {
		return true
	}
	for _, q := range s.Profiles {
		if q == p {
			return true
		}
	}
	return false
}

// HasClause reports whether c belongs to the profile: every clause belongs
// to Apex; only those marked core to Core.
func (p Profile) HasClause(c Clause) bool {
	return p.OrDefault() == Apex || (p == Core && c.Core)
}

// Clauses returns the clauses that belong to the profile, in order.
func (p Profile) Clauses(all []Clause) []Clause {
	var out []Clause
	for _, c := range all {
		if p.HasClause(c) {
			out = append(out, c)
		}
	}
	return out
}

// Scenarios returns the scenarios that belong to the profile, in order.
func (p Profile) Scenarios(all []Scenario) []Scenario {
	var out []Scenario
	for _, s := range all {
		if p.HasScenario(s) {
			out = append(out, s)
		}
	}
	return out
}
