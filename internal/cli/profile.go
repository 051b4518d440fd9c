package cli

import "github.com/apexcheck/apexcheck/conformance/suite"

// coreMarker is the marker of a core clause as the spec writes it in the
// clause header, after the level: "; core".
func coreMarker(c suite.Clause) string {
	if c.Core {
		return "; core"
	}
	return ""
}

// coreNote marks a scenario of the core profile at the end of its line in
// list and explain (every scenario is in apex, so only core needs saying).
func coreNote(s suite.Scenario) string {
	if suite.Core.HasScenario(s) {
		return "  (profile core)"
	}
	return ""
}
