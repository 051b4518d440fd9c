package cli

import "github.com/apexcheck/apexcheck/conformance"

// coreMarker is the marker of a core clause as the spec writes it in the
// clause header, after the level: "; core".
func coreMarker(c conformance.Clause) string {
	if c.Core {
		return "; core"
	}
	return ""
}

// coreNote marks a scenario of the core profile at the end of its line in
// list and explain (every scenario is in apex, so only core needs saying).
func coreNote(s conformance.Scenario) string {
	if conformance.Core.HasScenario(s) {
		return "  (profile core)"
	}
	return ""
}
