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
)

// Clause is one normative clause of the spec.
type Clause struct {
	ID string
	// Level is MUST, SHOULD or MAY.
	Level string
	// Provenance is where the clause comes from: seed, upstream or derived,
	// with its citation or reason.
	Provenance string
	// Text is the clause's text, without its ID and level.
	Text string
	// File is the spec file that holds it.
	File string
	// Core marks a clause of the core profile (see Profile): its header
	// says `core` between the level and the provenance.
	Core bool
}

// clausePattern matches a clause paragraph, its lines joined by spaces,
// with the core marker optional:
//
//	**EXEC-7** (MUST; seed bash.ts resolveTimeoutMs) Text…
//	**EXEC-5** (MUST; core; seed bash.ts spawn with stdin "ignore") Text…
var clausePattern = regexp.MustCompile(`^\*\*([A-Z]+-[0-9]+)\*\* \((MUST|SHOULD|MAY)(; core)?(?:; ([^)]*))?\)\s*(.*)$`)

// clauseStart marks a paragraph that means to be a clause.
var clauseStart = regexp.MustCompile(`^\*\*[A-Z]+-[0-9]+\*\*`)

// LoadClauses reads every clause of the spec files in fsys.
func LoadClauses(fsys fs.FS) ([]Clause, error) {
	files, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, fmt.Errorf("read spec: %w", err)
	}
	var out []Clause
	seen := map[string]string{}
	for _, f := range files {
		data, err := fs.ReadFile(fsys, f)
		if err != nil {
			return nil, fmt.Errorf("read spec: %w", err)
		}
		clauses, err := parseClauses(path.Base(f), data)
		if err != nil {
			return nil, err
		}
		for _, c := range clauses {
			if prev, dup := seen[c.ID]; dup {
				return nil, fmt.Errorf("spec: clause %s defined in both %s and %s", c.ID, prev, c.File)
			}
			seen[c.ID] = c.File
		}
		out = append(out, clauses...)
	}
	sort.Slice(out, func(i, j int) bool { return lessID(out[i].ID, out[j].ID) })
	return out, nil
}

// parseClauses reads the clauses of one spec file. A paragraph that starts
// like a clause but does not parse as one is an error, never skipped: a
// clause the index cannot see is a clause no test checks.
func parseClauses(file string, data []byte) ([]Clause, error) {
	var out []Clause
	for _, para := range paragraphs(data) {
		if !clauseStart.MatchString(para) {
			continue
		}
		m := clausePattern.FindStringSubmatch(para)
		if m == nil {
			return nil, fmt.Errorf("spec/%s: malformed clause header: %.80s", file, para)
		}
		m[4], m[5] = balanceProvenance(para, m[4], m[5])
		prov := strings.TrimSpace(m[4])
		if m[3] != "" {
			// balanceProvenance reads all after the level, the marker too.
			prov = strings.TrimPrefix(strings.TrimPrefix(prov, "core"), ";")
			prov = strings.TrimSpace(prov)
		}
		if prov == "" {
			return nil, fmt.Errorf("spec/%s: clause %s has no provenance", file, m[1])
		}
		if first, _, _ := strings.Cut(prov, ";"); strings.TrimSpace(first) == "core" || strings.HasPrefix(first, "core ") {
			// "core" anywhere but right after the level is a marker the
			// parser would otherwise read as provenance.
			return nil, fmt.Errorf("spec/%s: clause %s: the core marker must come right after the level, once: (LEVEL; core; PROVENANCE)", file, m[1])
		}
		out = append(out, Clause{ID: m[1], Level: m[2], Provenance: prov, Text: strings.TrimSpace(m[5]), File: file, Core: m[3] != ""})
	}
	return out, nil
}

// balanceProvenance repairs a header the pattern cut at a parenthesis
// of the provenance's own ("seed `f({ a })` before"): it finds the ")"
// that closes the header's "(", outside code spans, in para.
func balanceProvenance(para, prov, text string) (string, string) {
	open := strings.IndexByte(para, '(')
	depth, code := 0, false
	for i := open; i < len(para); i++ {
		switch c := para[i]; {
		case c == '`':
			code = !code
		case code:
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				_, p, _ := strings.Cut(para[open+1:i], ";")
				return strings.TrimSpace(p), strings.TrimSpace(para[i+1:])
			}
		}
	}
	return prov, text
}

// paragraphs splits Markdown text into paragraphs, each with its lines
// joined by single spaces. Headings and blank lines end a paragraph.
func paragraphs(data []byte) []string {
	var out []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.Join(cur, " "))
			cur = nil
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
			flush()
		case strings.HasPrefix(line, "#"):
			flush()
			out = append(out, line)
		default:
			cur = append(cur, line)
		}
	}
	flush()
	return out
}

// lessID orders clause IDs by area, then number.
func lessID(a, b string) bool {
	aa, an, _ := strings.Cut(a, "-")
	ba, bn, _ := strings.Cut(b, "-")
	if aa != ba {
		return aa < ba
	}
	if len(an) != len(bn) {
		return len(an) < len(bn)
	}
	return an < bn
}
