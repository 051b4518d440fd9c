package mutate

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Verdict is the triage of one surviving mutant.
type Verdict struct {
	// Equivalent is set when the mutant cannot change behaviour a
	// scenario could observe; Reason says why.
	Equivalent bool
	Reason     string
	// Scenario names the scenario that now kills the mutant, when it is
	// not equivalent.
	Scenario string
	// Missing is set for a survivor that no scenario kills yet although it
	// is not equivalent; Reason says what the missing scenario would have
	// to do. It counts against the kill rate, as an open survivor, but is
	// not untriaged.
	Missing bool
}

// Triage maps mutant IDs to their verdicts.
type Triage map[string]Verdict

// ParseTriage reads a triage list: one mutant a line,
//
//	<id> equivalent: <reason>
//	<id> scenario: <scenario name>
//	<id> missing: <what a scenario that kills it would have to do>
//
// Blank lines and lines starting with # are ignored. A line of any other
// shape, or a second verdict for the same ID, is an error naming the line.
func ParseTriage(r io.Reader) (Triage, error) {
	t := Triage{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, rest, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("triage line %d: want \"<id> equivalent: <reason>\" or \"<id> scenario: <name>\"", n)
		}
		kind, value, ok := strings.Cut(strings.TrimSpace(rest), ":")
		value = strings.TrimSpace(value)
		if !ok || value == "" {
			return nil, fmt.Errorf("triage line %d: %q has no verdict", n, id)
		}
		var v Verdict
		switch kind {
		case "equivalent":
			v = Verdict{Equivalent: true, Reason: value}
		case "missing":
			v = Verdict{Missing: true, Reason: value}
		case "scenario":
			if strings.ContainsAny(value, " \t") {
				return nil, fmt.Errorf("triage line %d: scenario %q is not one name", n, value)
			}
			v = Verdict{Scenario: value}
		default:
			return nil, fmt.Errorf("triage line %d: verdict %q: want equivalent, scenario or missing", n, kind)
		}
		if strings.Count(id, ":") != 3 {
			return nil, fmt.Errorf("triage line %d: %q is not a mutant id (file:function:operator:index)", n, id)
		}
		if _, dup := t[id]; dup {
			return nil, fmt.Errorf("triage line %d: %q triaged twice", n, id)
		}
		t[id] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read triage: %w", err)
	}
	return t, nil
}
