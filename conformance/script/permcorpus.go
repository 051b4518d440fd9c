package script

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/rogpeppe/go-internal/testscript"
)

// permCorpus is the permission corpus permcorpus reads by default: the one
// embedded in the kit, so that an installed apexcheck binary carries it.
var permCorpus fs.FS = apexcheck.Permissions

// The three corpus formats (testdata/permissions/README.md). A scenario's
// own corpus file is recognised by the same names, so its base name must end
// in commands.json, rules.json or engine.json.
type (
	permCommand struct {
		Command  string   `json:"command"`
		Want     string   `json:"want"` // "segments" or "unknown"
		Segments []string `json:"segments"`
		Class    string   `json:"class"`
		Reason   string   `json:"reason"`
	}
	permRuleEntry struct {
		Rule    string `json:"rule"`
		Segment string `json:"segment"`
		Match   bool   `json:"match"`
		Reason  string `json:"reason"`
	}
	permEngineEntry struct {
		Rules     []protocol.Rule `json:"rules"`
		Arguments json.RawMessage `json:"arguments"`
		Decision  string          `json:"decision"`
		Winner    *int            `json:"winner"`
		Reason    string          `json:"reason"`
	}
)

// backgroundHandleRule is the reserved rule content of PERM-9.
const backgroundHandleRule = "background-handle"

// cmdPermcorpus runs entries of the permission corpus through the protocol:
// one permission request per entry (more for some, see below), checking the
// answer fields the corpus README names, and fails listing every entry
// that disagrees, with the entry's reason, rather than stopping at the
// first.
//
//	permcorpus [-local] [-class C,...] [-cites ID,...] FILE
//
// FILE is commands.json, rules.json or engine.json of the embedded corpus,
// or with -local a file of the scenario in one of those formats (told by
// the end of its name). -class keeps commands.json entries of the listed
// classes; -cites keeps entries whose reason cites one of the listed
// clauses. At least one entry must be selected. The last answer becomes the
// last response, for field.
func cmdPermcorpus(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("permcorpus does not support negation")
	}
	fset := newFlags(ts, "permcorpus")
	local := fset.Bool("local", false, "read FILE from the scenario instead of the embedded corpus")
	classes := fset.String("class", "", "comma-separated classes of commands.json to keep")
	cites := fset.String("cites", "", "comma-separated clause IDs; keep entries whose reason cites one")
	parseFlags(ts, fset, args)
	if fset.NArg() != 1 {
		ts.Fatalf("usage: permcorpus [-local] [-class C,...] [-cites ID,...] FILE")
	}
	name := fset.Arg(0)
	var data []byte
	if *local {
		data = []byte(ts.ReadFile(name))
	} else {
		var err error
		if data, err = fs.ReadFile(permCorpus, name); err != nil {
			ts.Fatalf("permcorpus: %v", err)
		}
	}
	pc := &permRun{s: s, cites: citePattern(*cites)}
	if *classes != "" {
		pc.classes = strings.Split(*classes, ",")
	}
	base := path.Base(name)
	if pc.classes != nil && !strings.HasSuffix(base, "commands.json") {
		ts.Fatalf("permcorpus: -class applies to commands.json only")
	}
	switch {
	case strings.HasSuffix(base, "commands.json"):
		pc.commands(decodeCorpus[permCommand](ts, name, data))
	case strings.HasSuffix(base, "rules.json"):
		pc.rules(decodeCorpus[permRuleEntry](ts, name, data))
	case strings.HasSuffix(base, "engine.json"):
		pc.engine(ts, decodeCorpus[permEngineEntry](ts, name, data))
	default:
		ts.Fatalf("permcorpus: %s: the name must end in commands.json, rules.json or engine.json", name)
	}
	if pc.checked == 0 {
		ts.Fatalf("permcorpus: %s: no entry selected", name)
	}
	if len(pc.fails) > 0 {
		ts.Fatalf("permcorpus %s: %d of %d entries disagree:\n%s", name, len(pc.fails), pc.checked, strings.Join(pc.fails, "\n"))
	}
	fmt.Fprintf(ts.Stdout(), "permcorpus %s: %d entries, %d requests, all agree\n", name, pc.checked, pc.requests)
}

// citePattern matches a reason citing one of the clause IDs in list, and
// not a longer ID that starts with one (PERM-3 is not PERM-36).
func citePattern(list string) *regexp.Regexp {
	if list == "" {
		return nil
	}
	ids := strings.Split(list, ",")
	for i, id := range ids {
		ids[i] = regexp.QuoteMeta(strings.TrimSpace(id))
	}
	return regexp.MustCompile(`\b(` + strings.Join(ids, "|") + `)\b`)
}

func decodeCorpus[T any](ts *testscript.TestScript, name string, data []byte) []T {
	out, err := parseCorpus[T](data)
	if err != nil {
		ts.Fatalf("permcorpus: %s: %v", name, err)
	}
	return out
}

// parseCorpus decodes corpus entries, each member by its exact name: a
// member no entry defines, "Command" for "command" included, is an error,
// never read as the member it resembles (encoding/json would).
func parseCorpus[T any](data []byte) ([]T, error) {
	var out []T
	if err := protocol.UnmarshalKnown(data, &out); err != nil {
		return nil, fmt.Errorf("%w (member names are exact)", err)
	}
	return out, nil
}

// permRun accumulates one permcorpus command's selection and mismatches.
type permRun struct {
	s        *state
	classes  []string
	cites    *regexp.Regexp
	checked  int
	requests int
	fails    []string
}

func (pc *permRun) keep(class, reason string) bool {
	if pc.classes != nil && !slices.Contains(pc.classes, class) {
		return false
	}
	if pc.cites != nil && !pc.cites.MatchString(reason) {
		return false
	}
	pc.checked++
	return true
}

// ask sends one permission request and returns the answer.
func (pc *permRun) ask(rules []protocol.Rule, args json.RawMessage) protocol.PermissionAnswer {
	if rules == nil {
		rules = []protocol.Rule{}
	}
	pc.requests++
	resp := pc.s.request(protocol.Request{Type: protocol.TypePermission, Arguments: args, Rules: rules}, protocol.TypePermission)
	if resp.Permission == nil {
		pc.s.errored("permission answer carries no permission object%s", pc.s.lastNote)
	}
	return *resp.Permission
}

// fail records an entry's disagreements, if any: where, each field that
// differs, and the entry's reason.
func (pc *permRun) fail(index int, input string, bad []string, reason string) {
	if len(bad) == 0 {
		return
	}
	pc.fails = append(pc.fails, fmt.Sprintf("  [%d] %s\n      %s\n      reason: %s", index, input, strings.Join(bad, "\n      "), reason))
}

// commands checks commands.json entries: no rules, arguments
// {"command": …}. Besides unknown and segments, every function of the
// answer is determined by the entry (PERM-7, PERM-8, PERM-43), and for a
// single segment the rule "always allow" would persist must authorise the
// command it came from (PERM-8), which costs a second request.
func (pc *permRun) commands(entries []permCommand) {
	for i, e := range entries {
		if !pc.keep(e.Class, e.Reason) {
			continue
		}
		args := commandArgs(e.Command)
		a := pc.ask(nil, args)
		in := show(e.Command)
		wantUnknown := e.Want == "unknown"
		var bad []string
		if a.Unknown != wantUnknown {
			bad = append(bad, fmt.Sprintf("unknown = %v, want %v", a.Unknown, wantUnknown))
		}
		switch {
		case wantUnknown && a.Segments != nil:
			bad = append(bad, fmt.Sprintf("segments = %s, want null", jsonText(a.Segments)))
		case !wantUnknown && !slices.Equal(a.Segments, e.Segments):
			bad = append(bad, fmt.Sprintf("segments = %s, want %s", jsonText(a.Segments), jsonText(e.Segments)))
		}
		if a.Decision != "ask" || a.Rule != nil {
			bad = append(bad, fmt.Sprintf("decision %q rule %s with no rules, want \"ask\" and null (PERM-41)", a.Decision, jsonText(a.Rule)))
		}
		if a.DefaultBehavior != "ask" {
			bad = append(bad, fmt.Sprintf("defaultBehavior = %q, want \"ask\" (PERM-43)", a.DefaultBehavior))
		}
		// An empty command is a rejected call (CALL-9), whose preview is
		// its rejection reason; every other corpus command is a run call.
		if e.Command != "" && !slices.Equal(a.Preview, []string{e.Command}) {
			bad = append(bad, fmt.Sprintf("preview = %s, want the command as one line (PERM-7)", jsonText(a.Preview)))
		}
		if len(a.Descriptions) != 0 {
			bad = append(bad, fmt.Sprintf("descriptions = %s with no rules, want [] (PERM-43)", jsonText(a.Descriptions)))
		}
		want := expectedRuleForCall(e)
		switch {
		case want == nil && a.RuleForCall != nil:
			bad = append(bad, fmt.Sprintf("ruleForCall = %q, want null (PERM-8)", *a.RuleForCall))
		case want != nil && (a.RuleForCall == nil || *a.RuleForCall != *want):
			bad = append(bad, fmt.Sprintf("ruleForCall = %s, want %q (PERM-8)", jsonText(a.RuleForCall), *want))
		case want != nil:
			rules := []protocol.Rule{{Source: "session", Behavior: "allow", Content: want}}
			if b := pc.ask(rules, args); b.Decision != "allow" {
				bad = append(bad, fmt.Sprintf("its own ruleForCall %q as an allow rule decides %q, want \"allow\" (PERM-8)", *want, b.Decision))
			}
		}
		pc.fail(i, in, bad, e.Reason)
	}
}

// expectedRuleForCall is PERM-8 for a corpus command: null unless it
// classifies as one segment; that segment raw when it is grammar-sensitive
// (PERM-12); else with its runs of SPACE collapsed, which is all PERM-11's
// normalisation does to a segment, since a segment is trimmed and holds no
// blank but SPACE, TAB and LF (PERM-19, PERM-30), and TAB and LF are
// grammar-sensitive.
func expectedRuleForCall(e permCommand) *string {
	if e.Want != "segments" || len(e.Segments) != 1 {
		return nil
	}
	r := e.Segments[0]
	if !strings.ContainsAny(r, "\"'\\\t\n#") {
		for strings.Contains(r, "  ") {
			r = strings.ReplaceAll(r, "  ", " ")
		}
	}
	return &r
}

// rules checks rules.json entries: the segment as the command, once under an
// allow rule and once under a deny rule with the entry's content.
func (pc *permRun) rules(entries []permRuleEntry) {
	for i, e := range entries {
		if !pc.keep("", e.Reason) {
			continue
		}
		in := fmt.Sprintf("rule %q, segment %q", e.Rule, e.Segment)
		args := commandArgs(e.Segment)
		var bad []string
		for _, behavior := range []string{"allow", "deny"} {
			content := e.Rule
			rule := protocol.Rule{Source: "session", Behavior: behavior, Content: &content}
			a := pc.ask([]protocol.Rule{rule}, args)
			if a.Unknown || !slices.Equal(a.Segments, []string{e.Segment}) {
				bad = append(bad, fmt.Sprintf("the segment does not classify as itself (unknown %v, segments %s), so the matcher is not reached", a.Unknown, jsonText(a.Segments)))
				break
			}
			want, winner := "ask", (*protocol.Rule)(nil)
			if e.Match {
				want, winner = behavior, &rule
			}
			if a.Decision != want || !protocol.SameRule(a.Rule, winner) {
				bad = append(bad, fmt.Sprintf("as a %s rule: decision %q rule %s, want %q rule %s", behavior, a.Decision, jsonText(a.Rule), want, jsonText(winner)))
			}
			if d := describeRule(&content); !slices.Equal(a.Descriptions, []string{d}) {
				bad = append(bad, fmt.Sprintf("as a %s rule: descriptions = %s, want %s (PERM-6)", behavior, jsonText(a.Descriptions), jsonText([]string{d})))
			}
		}
		pc.fail(i, in, bad, e.Reason)
	}
}

// engine checks engine.json entries: the rules and raw arguments as listed;
// the decision, the winning rule and every rule's description.
func (pc *permRun) engine(ts *testscript.TestScript, entries []permEngineEntry) {
	for i, e := range entries {
		if !pc.keep("", e.Reason) {
			continue
		}
		if e.Winner != nil && (*e.Winner < 0 || *e.Winner >= len(e.Rules)) {
			ts.Fatalf("permcorpus: engine entry %d: winner %d out of range", i, *e.Winner)
		}
		a := pc.ask(e.Rules, e.Arguments)
		in := fmt.Sprintf("arguments %s, rules %s", show(string(e.Arguments)), show(jsonText(e.Rules)))
		var want *protocol.Rule
		if e.Winner != nil {
			want = &e.Rules[*e.Winner]
		}
		var bad []string
		if a.Decision != e.Decision || !protocol.SameRule(a.Rule, want) {
			bad = append(bad, fmt.Sprintf("decision %q rule %s, want %q rule %s", a.Decision, jsonText(a.Rule), e.Decision, jsonText(want)))
		}
		descs := make([]string, len(e.Rules))
		for j := range e.Rules {
			descs[j] = describeRule(e.Rules[j].Content)
		}
		if !slices.Equal(a.Descriptions, descs) {
			bad = append(bad, fmt.Sprintf("descriptions = %s, want %s (PERM-6, PERM-43)", jsonText(a.Descriptions), jsonText(descs)))
		}
		pc.fail(i, in, bad, e.Reason)
	}
}

// describeRule is PERM-6, and the empty string for a tool-wide rule (PERM-43).
func describeRule(content *string) string {
	switch {
	case content == nil:
		return ""
	case *content == backgroundHandleRule:
		return "Retrieve or kill background shell commands"
	}
	return `Run bash commands matching "` + *content + `"`
}

// commandArgs are the raw arguments of a run call, as every perm scenario
// sends them.
func commandArgs(command string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{"command": command}) // a string always marshals
	return b
}

// jsonText renders v as compact JSON for a failure message.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// show quotes s for a failure message, shortened when long: the corpus has
// commands of many kilobytes.
func show(s string) string {
	const max = 160
	if len(s) <= max {
		return fmt.Sprintf("%q", s)
	}
	cut := max
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…(%d bytes)", s[:cut], len(s))
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
