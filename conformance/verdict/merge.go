package verdict

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// ShardReport is a JSON Lines report read back from a file (usually one
// shard of a CI matrix, written with --shard and --json), for [MergeReports].
type ShardReport struct {
	// Name is where the report came from, for messages.
	Name string
	// Report holds the run; its Ledger is nil (a merge applies its own).
	Report *Report
	// header is the header line's members, compared across shards.
	header map[string]json.RawMessage
}

// ErrMerge wraps every reason [MergeReports] refuses its reports.
var ErrMerge = errors.New("merge reports")

// maxReportLine bounds one line of a JSON Lines report: a scenario line
// carries at most MaxLog of log plus its message.
const maxReportLine = 16 << 20

// ReadShardReport reads a report written by [Report.WriteJSONLines]. It
// checks the framing: a header first, a footer last whose counts agree
// with the scenario lines (so that a truncated upload is noticed), each
// scenario once.
func ReadShardReport(r io.Reader, name string) (*ShardReport, error) {
	sr := &ShardReport{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxReportLine)
	var footer *jsonFooter
	seen := map[string]bool{}
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var kind struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(line, &kind); err != nil {
			return nil, fmt.Errorf("read report %s:%d: %w", name, n, err)
		}
		if footer != nil && (kind.Type == "scenario" || kind.Type == "header" || kind.Type == "footer") {
			return nil, fmt.Errorf("read report %s:%d: %s line after the footer", name, n, kind.Type)
		}
		switch kind.Type {
		case "header":
			if sr.Report != nil {
				return nil, fmt.Errorf("read report %s:%d: a second header", name, n)
			}
			var h jsonHeader
			if err := json.Unmarshal(line, &h); err != nil {
				return nil, fmt.Errorf("read report %s:%d: header: %w", name, n, err)
			}
			if err := json.Unmarshal(line, &sr.header); err != nil {
				return nil, fmt.Errorf("read report %s:%d: header: %w", name, n, err)
			}
			started, err := time.Parse(time.RFC3339, h.Started)
			if err != nil {
				return nil, fmt.Errorf("read report %s:%d: header: started: %w", name, n, err)
			}
			// A report of a kit before profiles has none: the whole suite.
			if _, err := suite.ParseProfile(string(h.Profile)); err != nil {
				return nil, fmt.Errorf("read report %s:%d: header: %w", name, n, err)
			}
			sr.Report = &Report{Kit: h.Kit, Suite: h.Suite, Profile: h.Profile, Implementation: h.Implementation,
				Capabilities: h.Capabilities, Command: h.Command, Started: started}
		case "scenario":
			if sr.Report == nil {
				return nil, fmt.Errorf("read report %s:%d: a scenario before the header", name, n)
			}
			var s jsonScenario
			if err := json.Unmarshal(line, &s); err != nil {
				return nil, fmt.Errorf("read report %s:%d: scenario: %w", name, n, err)
			}
			if !s.Outcome.Valid() {
				return nil, fmt.Errorf("read report %s:%d: scenario %s: outcome %q", name, n, s.Name, s.Outcome)
			}
			if s.Name == "" || seen[s.Name] {
				return nil, fmt.Errorf("read report %s:%d: scenario %q is empty or listed twice", name, n, s.Name)
			}
			seen[s.Name] = true
			if sr.Report.ScriptDir == "" && s.File != "" {
				sr.Report.ScriptDir = path.Dir(s.File)
			}
			sr.Report.Results = append(sr.Report.Results, suite.Result{
				Scenario: suite.Scenario{Name: s.Name, Path: s.Name + ".txtar", Clauses: s.Clauses, Requires: s.Requires, Area: s.Area},
				Outcome:  s.Outcome, Message: s.Message, Log: s.Log, WorkDir: s.WorkDir, Attempts: s.Attempts,
				Duration: time.Duration(s.DurationMs) * time.Millisecond})
		case "footer":
			var f jsonFooter
			if err := json.Unmarshal(line, &f); err != nil {
				return nil, fmt.Errorf("read report %s:%d: footer: %w", name, n, err)
			}
			footer = &f
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read report %s: %w", name, err)
	}
	switch {
	case sr.Report == nil:
		return nil, fmt.Errorf("read report %s: no header line: not an apexcheck --json report", name)
	case footer == nil:
		return nil, fmt.Errorf("read report %s: no footer line: the report is truncated", name)
	case footer.SetupError != nil:
		return nil, fmt.Errorf("read report %s: %w: no scenario ran: %s", name, ErrMerge, footer.SetupError.Text())
	}
	t := suite.Count(sr.Report.Results)
	if t.Passed != footer.Passed || t.Failed != footer.Failed || t.Errored != footer.Errored || t.Skipped != footer.Skipped {
		return nil, fmt.Errorf("read report %s: the footer counts %d passed, %d failed, %d errored, %d skipped, but the report lists %s",
			name, footer.Passed, footer.Failed, footer.Errored, footer.Skipped, t)
	}
	sr.Report.Duration = time.Duration(footer.DurationMs) * time.Millisecond
	return sr, nil
}

// LoadShardReport reads a report file.
func LoadShardReport(file string) (*ShardReport, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	defer f.Close()
	return ReadShardReport(f, file)
}

// mayDiffer are the header members that legitimately differ between the
// shards of one certification: when and how each was started, and the
// ledger path on its runner. Every other member, including any a later kit
// adds (a profile, say), must agree.
var mayDiffer = map[string]bool{"type": true, "started": true, "command": true, "ledger": true}

// MergeReports combines shard reports into the report of one run of the
// whole suite. It refuses reports that are not of one run: of different
// kits, suites, implementations or capabilities (or any other header
// member but started, command and ledger); a suite other than digest, the
// suite this kit runs; and reports that do not cover the scenarios of their
// profile exactly once, naming every scenario missing, duplicated or
// unknown. The profile is the shards' (their headers must agree on it, as
// on everything else), and the merged report keeps it, so that a merged
// core run is judged and certified under core. Results take their scenario
// metadata from scenarios and are sorted by name.
func MergeReports(shards []*ShardReport, scenarios []suite.Scenario, digest string) (*Report, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("%w: no reports", ErrMerge)
	}
	first := shards[0]
	for _, sr := range shards[1:] {
		if err := sameRun(first, sr); err != nil {
			return nil, err
		}
	}
	if first.Report.Suite != digest {
		return nil, fmt.Errorf("%w: %s is for suite %s, but this kit runs suite %s: merge with the apexcheck that ran the shards",
			ErrMerge, first.Name, suite.ShortDigest(first.Report.Suite), suite.ShortDigest(digest))
	}
	profile := first.Report.Profile
	scenarios = profile.OrDefault().Scenarios(scenarios)
	known := map[string]suite.Scenario{}
	for _, s := range scenarios {
		known[s.Name] = s
	}
	from := map[string]string{}
	var dups, unknown []string
	merged := &Report{Kit: first.Report.Kit, Suite: digest, Profile: profile, Implementation: first.Report.Implementation,
		Capabilities: first.Report.Capabilities, ScriptDir: first.Report.ScriptDir, Started: first.Report.Started}
	end := first.Report.Started
	for _, sr := range shards {
		if merged.Command == "" {
			merged.Command = sr.Report.Command
		}
		if sr.Report.Started.Before(merged.Started) {
			merged.Started = sr.Report.Started
		}
		if e := sr.Report.Started.Add(sr.Report.Duration); e.After(end) {
			end = e
		}
		for _, r := range sr.Report.Results {
			s, ok := known[r.Scenario.Name]
			switch {
			case !ok:
				unknown = append(unknown, fmt.Sprintf("%s (in %s)", r.Scenario.Name, sr.Name))
				continue
			case from[s.Name] != "":
				dups = append(dups, fmt.Sprintf("%s (in %s and %s)", s.Name, from[s.Name], sr.Name))
				continue
			}
			from[s.Name] = sr.Name
			r.Scenario = s
			merged.Results = append(merged.Results, r)
		}
	}
	var missing []string
	for _, s := range scenarios {
		if from[s.Name] == "" {
			missing = append(missing, s.Name)
		}
	}
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, fmt.Sprintf("%d scenarios in no report: %s (a shard missing, or a run with --run?)",
			len(missing), strings.Join(missing, ", ")))
	}
	if len(dups) > 0 {
		problems = append(problems, fmt.Sprintf("%d scenarios in more than one report: %s (the same shard twice, or shards of different counts?)",
			len(dups), strings.Join(dups, ", ")))
	}
	if len(unknown) > 0 {
		in := ""
		if p := profile.OrDefault(); p != suite.Apex {
			in = " in profile " + string(p)
		}
		problems = append(problems, fmt.Sprintf("%d scenarios this suite does not have%s: %s", len(unknown), in, strings.Join(unknown, ", ")))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("%w: the reports do not cover the suite exactly once: %s", ErrMerge, strings.Join(problems, "; "))
	}
	sort.Slice(merged.Results, func(i, j int) bool { return merged.Results[i].Scenario.Name < merged.Results[j].Scenario.Name })
	merged.Duration = end.Sub(merged.Started)
	return merged, nil
}

// sameRun reports how two shard reports differ as runs, or nil.
func sameRun(a, b *ShardReport) error {
	keys := map[string]bool{}
	for k := range a.header {
		keys[k] = true
	}
	for k := range b.header {
		keys[k] = true
	}
	var diffs []string
	for k := range keys {
		if mayDiffer[k] {
			continue
		}
		va, vb := canonical(a.header[k]), canonical(b.header[k])
		if va != vb {
			diffs = append(diffs, fmt.Sprintf("%s %s vs %s", k, va, vb))
		}
	}
	if len(diffs) == 0 {
		return nil
	}
	sort.Strings(diffs)
	return fmt.Errorf("%w: %s and %s are not shards of one run: %s", ErrMerge, a.Name, b.Name, strings.Join(diffs, "; "))
}

// canonical renders a JSON value with object members sorted, so that
// reports compare by meaning rather than by bytes; "(none)" when absent.
func canonical(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "(none)"
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	out, _ := json.Marshal(v) // maps marshal with sorted keys
	return string(out)
}

// Narrow makes rep, a whole run's report, the report of profile p: the
// results of p's scenarios, and nothing else. A profile only selects
// scenarios, and a scenario runs alike under every profile it belongs to,
// so the core verdict on an implementation is its apex run's verdict on
// the core scenarios: one apex run serves both (apexcheck merge --profile
// core). Only an apex report has every profile's scenarios.
func Narrow(rep *Report, p suite.Profile) error {
	from, to := rep.Profile.OrDefault(), p.OrDefault()
	if from == to {
		return nil
	}
	if from != suite.Apex {
		return fmt.Errorf("%w: a %s report holds only the %s scenarios; the %s verdict needs an apex report", ErrMerge, from, from, to)
	}
	var kept []suite.Result
	for _, r := range rep.Results {
		if to.HasScenario(r.Scenario) {
			kept = append(kept, r)
		}
	}
	rep.Results, rep.Profile = kept, to
	return nil
}
