package cli

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

// selectFlags choose scenarios: --run by regular expression, --area by
// exact area name, --shard by stable hash. A scenario must satisfy all
// that are given.
type selectFlags struct {
	run     string
	areas   areaList
	shard   string
	profile string
}

func (f *selectFlags) register(fs *flag.FlagSet, verb string) {
	fs.StringVar(&f.run, "run", "", verb+" only scenarios whose name matches `REGEXP`")
	fs.Var(&f.areas, "area", verb+" only the scenarios of area `NAME` (exec, path, …; repeat the flag or give a comma list)")
	fs.StringVar(&f.shard, "shard", "", verb+" only shard `i/n` of the suite (stable by scenario name), for CI matrices")
	fs.StringVar(&f.profile, "profile", "apex", verb+" the scenarios of profile `NAME`: apex (the whole apex-code contract) or core (portable behaviour, any wording); see spec/README.md")
}

// whole reports whether no flag narrows the selection.
func (f *selectFlags) whole() bool { return f.run == "" && len(f.areas) == 0 && f.shard == "" }

// apply sets cfg.Run and cfg.Select from the flags. all is the whole
// suite, against which area names are checked.
func (f *selectFlags) apply(cfg *conformance.Config, all []suite.Scenario) error {
	profile, err := suite.ParseProfile(f.profile)
	if err != nil {
		return fmt.Errorf("--profile: %w", err)
	}
	cfg.Profile = profile
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			return fmt.Errorf("--run: %w", err)
		}
		cfg.Run = re
	}
	var tests []func(suite.Scenario) bool
	if len(f.areas) > 0 {
		known := areas(all)
		want := map[string]bool{}
		for _, a := range f.areas {
			if !slices.Contains(known, a) {
				return fmt.Errorf("--area %s: no such area; the suite's areas are %s", a, strings.Join(known, ", "))
			}
			want[a] = true
		}
		tests = append(tests, func(s suite.Scenario) bool { return want[s.Area] })
	}
	if f.shard != "" {
		sh, err := suite.ParseShard(f.shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		tests = append(tests, sh.Contains)
	}
	if len(tests) > 0 {
		cfg.Select = func(s suite.Scenario) bool {
			for _, t := range tests {
				if !t(s) {
					return false
				}
			}
			return true
		}
	}
	return nil
}

// areas returns the areas of the scenarios, sorted, without repeats.
func areas(all []suite.Scenario) []string {
	var out []string
	for _, s := range all {
		if !slices.Contains(out, s.Area) {
			out = append(out, s.Area)
		}
	}
	slices.Sort(out)
	return out
}

// areaList is the value of --area: every use adds its comma-separated
// names.
type areaList []string

func (a *areaList) String() string { return strings.Join(*a, ",") }

func (a *areaList) Set(v string) error {
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return errors.New("empty area name")
		}
		*a = append(*a, name)
	}
	return nil
}
