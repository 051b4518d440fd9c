package suite

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/txtar"
)

// Scenario is one scenario file and the metadata its header declares.
//
// A scenario's header is the comment before its first command:
//
//	# A call with both command and handle is rejected and runs nothing.
//	# clauses: CALL-5 CALL-10
//	# requires: background
//	# profile: core
//
// The first line says what it proves; "clauses:" names the clause IDs it
// proves; "requires:" names capabilities without which it is skipped;
// "profile:" names the profiles beyond the default apex it belongs to
// (only core exists: see Profile).
type Scenario struct {
	// Name is the file name without .txtar: the scenario's stable identity.
	Name string
	// Path is the file's path within the scenario tree.
	Path     string
	Summary  string
	Clauses  []string
	Requires []string
	// Profiles are the profiles the header names (core); every scenario is
	// in the apex profile besides.
	Profiles []Profile
	// Area is the part of the name before the first underscore.
	Area string
}

var clauseIDPattern = regexp.MustCompile(`^[A-Z]+-[0-9]+$`)

// IsClauseID reports whether id has the form of a clause ID, such as
// "PERM-32".
func IsClauseID(id string) bool { return clauseIDPattern.MatchString(id) }

// LoadScenarios reads every *.txtar file in dir of fsys.
func LoadScenarios(fsys fs.FS, dir string) ([]Scenario, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read scenarios: %w", err)
	}
	var out []Scenario
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".txtar") {
			continue
		}
		p := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("read scenario: %w", err)
		}
		s, err := ParseScenario(p, data)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ParseScenario reads a scenario's header.
func ParseScenario(p string, data []byte) (Scenario, error) {
	name := strings.TrimSuffix(path.Base(p), ".txtar")
	s := Scenario{Name: name, Path: p}
	s.Area, _, _ = strings.Cut(name, "_")
	comment := txtar.Parse(data).Comment
	sc := bufio.NewScanner(bytes.NewReader(comment))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		text := strings.TrimSpace(strings.TrimPrefix(line, "#"))
		switch {
		case strings.HasPrefix(text, "clauses:"):
			for _, id := range strings.Fields(strings.TrimPrefix(text, "clauses:")) {
				if !clauseIDPattern.MatchString(id) {
					return s, fmt.Errorf("%s: malformed clause ID %q", p, id)
				}
				s.Clauses = append(s.Clauses, id)
			}
		case strings.HasPrefix(text, "requires:"):
			s.Requires = append(s.Requires, strings.Fields(strings.TrimPrefix(text, "requires:"))...)
		case strings.HasPrefix(text, "profile:"):
			for _, name := range strings.Fields(strings.TrimPrefix(text, "profile:")) {
				// Apex holds every scenario, so only core can be named.
				if Profile(name) != Core {
					return s, fmt.Errorf("%s: profile %q: the only profile a scenario names is core (every scenario is in apex)", p, name)
				}
				s.Profiles = append(s.Profiles, Core)
			}
		case s.Summary == "":
			s.Summary = text
		}
	}
	if len(s.Clauses) == 0 {
		return s, fmt.Errorf("%s: header cites no clauses (want a line \"# clauses: AREA-N …\")", p)
	}
	return s, nil
}

// Missing returns the capabilities s requires that caps lacks.
func (s Scenario) Missing(caps map[string]bool) []string {
	var missing []string
	for _, r := range s.Requires {
		if !caps[r] {
			missing = append(missing, r)
		}
	}
	return missing
}
