package conformance

import "github.com/apexcheck/apexcheck/conformance/suite"

// selects reports whether the configuration selects s.
func (cfg *Config) selects(s suite.Scenario) bool {
	if cfg.Run != nil && !cfg.Run.MatchString(s.Name) {
		return false
	}
	if !cfg.Profile.HasScenario(s) {
		return false
	}
	return cfg.Select == nil || cfg.Select(s)
}

// Selected returns the scenarios a run with cfg would run or skip, sorted
// by name: those of the profile that Run and Select choose. Reporters use it to know the total
// before the first result arrives.
func (cfg Config) Selected() ([]suite.Scenario, error) {
	all, err := suite.LoadScenarios(cfg.Scripts, cfg.Dir)
	if err != nil {
		return nil, err
	}
	var out []suite.Scenario
	for _, s := range all {
		if cfg.selects(s) {
			out = append(out, s)
		}
	}
	return out, nil
}
