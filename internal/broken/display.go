package broken

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// displayArea selects every scenario of spec/display.md: headers
// (display_) and evidence records (evidence_).
const displayArea = `^(display|evidence)_`

// The display and evidence variants are the mistakes of a port of the
// seed's formatShellCall and evidence.capture: a theme left in, a header
// drawn from a second reading of the arguments, a record built from the
// wrong fields. Each is written from its clause.
func init() {
	Register("display-styled-prompt", Variant{
		Defect:    "keeps the theme's styling in the header: the prompt in bold (`\\x1b[1m$\\x1b[22m`), as a port of the TUI renderer prints it",
		Clause:    "DISP-1",
		Scenarios: displayArea,
		Serve: filtered(nil, renderHeader(func(h string) string {
			return strings.Replace(h, tool.Prompt, "\x1b[1m"+tool.Prompt+"\x1b[22m", 1)
		})),
	})
	Register("display-trailing-newline", Variant{
		Defect:    "ends the header with a line feed, as a port that prints it as a line (console.log, println!) does",
		Clause:    "DISP-1",
		Scenarios: displayArea,
		Serve:     filtered(nil, renderHeader(func(h string) string { return h + "\n" })),
	})
	Register("display-parse-first", Variant{
		Defect: "draws the header from the parse when the parse accepts the call, and checks the field " +
			"types only for a rejected one, so `{\"command\":\"ls\",\"handle\":5}` renders `$ ls`",
		Clause:    "DISP-2",
		Scenarios: displayArea,
		Serve: filtered(renderArgs(func(m map[string]any) {
			raw, _ := json.Marshal(m)
			if !call.Parse(raw).OK {
				return
			}
			for _, k := range []string{"command", "handle"} {
				if v, ok := m[k]; ok && v != nil && !isString(v) {
					delete(m, k)
				}
			}
		}), nil),
	})
	Register("display-rejected-ellipsis", Variant{
		Defect: "renders every rejected call as `$ ...`, as if its arguments were still streaming in, " +
			"so an ambiguous call or a handle call with stray fields shows no invalid-argument marker",
		Clause:    "DISP-3",
		Scenarios: displayArea,
		Serve: filtered(renderArgs(func(m map[string]any) {
			raw, _ := json.Marshal(m)
			if call.Parse(raw).OK {
				return
			}
			for _, k := range []string{"command", "handle"} {
				if v, ok := m[k]; ok && v != nil && !isString(v) {
					return // DISP-2's marker still comes first
				}
			}
			for k := range m {
				delete(m, k)
			}
		}), nil),
	})
	Register("display-kill-bullet", Variant{
		Defect:    "joins a kill header with ` • kill` (U+2022 BULLET), the look-alike of U+00B7 MIDDLE DOT",
		Clause:    "DISP-4",
		Scenarios: displayArea,
		Serve: filtered(nil, renderHeader(func(h string) string {
			return strings.Replace(h, " · kill", " • kill", 1)
		})),
	})
	Register("display-first-line", Variant{
		Defect:    "shows only the first line of a multi-line command, as a one-line header widget would",
		Clause:    "DISP-5",
		Scenarios: displayArea,
		Serve: filtered(nil, renderHeader(func(h string) string {
			first, _, _ := strings.Cut(h, "\n")
			return first
		})),
	})
	Register("display-marker-text", Variant{
		Defect:    "writes the invalid-argument marker as `[invalid]`, its text reworded in the port",
		Clause:    "DISP-6",
		Scenarios: displayArea,
		Serve: filtered(nil, renderHeader(func(h string) string {
			return strings.Replace(h, tool.InvalidArgMarker, "[invalid]", 1)
		})),
	})

	Register("evidence-success-only", Variant{
		Defect:    "records evidence only for a call that succeeded, as a capture hook on the success path does: an error result leaves none",
		Clause:    "EVID-1",
		Scenarios: displayArea,
		Serve: withEvidence(func(args []byte, r protocol.Result, recs []protocol.EvidenceRecord) []protocol.EvidenceRecord {
			if r.IsError {
				return nil
			}
			return recs
		}),
	})
	Register("evidence-prefixed-command", Variant{
		Defect:    "records a run's command with the commandPrefix joined, the text the shell was given, instead of the command as sent",
		Clause:    "EVID-2",
		Scenarios: displayArea,
		Serve: withEvidence(func(args []byte, r protocol.Result, recs []protocol.EvidenceRecord) []protocol.EvidenceRecord {
			for i := range recs {
				if n := len(recs[i].Argv); n > 0 {
					recs[i].Command = recs[i].Argv[n-1]
				}
			}
			return recs
		}),
	})
	Register("evidence-opaque-handle", Variant{
		Defect:    "records a retrieve or kill call by its handle, without resolving it to the command its launch started",
		Clause:    "EVID-2",
		Scenarios: displayArea,
		Serve: withEvidence(func(args []byte, r protocol.Result, recs []protocol.EvidenceRecord) []protocol.EvidenceRecord {
			if p := call.Parse(args); p.OK && p.Operation.Kind != call.Run {
				for i := range recs {
					recs[i].Command = p.Operation.Handle
				}
			}
			return recs
		}),
	})
	Register("evidence-partial-facts", Variant{
		Defect:    "copies only `cwd` and `exitCode` of the execution facts into the record, not `executable` and `argv`",
		Clause:    "EVID-3",
		Scenarios: displayArea,
		Serve: withEvidence(func(args []byte, r protocol.Result, recs []protocol.EvidenceRecord) []protocol.EvidenceRecord {
			for i := range recs {
				recs[i].Executable, recs[i].Argv = "", nil
			}
			return recs
		}),
	})
}

// renderHeader is a response filter that rewrites the header of every
// render answer with edit.
func renderHeader(edit func(string) string) func([]byte) []byte {
	return func(line []byte) []byte {
		return editMessage(line, func(msg map[string]json.RawMessage) {
			var header string
			if messageType(msg) != protocol.TypeRender || json.Unmarshal(msg["header"], &header) != nil {
				return
			}
			msg["header"], _ = json.Marshal(edit(header))
		})
	}
}

// evidenceFunc is a Handler whose evidence records are edited.
type evidenceFunc struct {
	server.Handler
	edit func(args []byte, r protocol.Result, recs []protocol.EvidenceRecord) []protocol.EvidenceRecord
}

// Evidence returns the reference's records as edited.
func (e evidenceFunc) Evidence(args []byte, r protocol.Result) []protocol.EvidenceRecord {
	return e.edit(args, r, e.Handler.Evidence(args, r))
}

// withEvidence serves the reference with its evidence records edited.
func withEvidence(edit func(args []byte, r protocol.Result, recs []protocol.EvidenceRecord) []protocol.EvidenceRecord) func(io.Reader, io.Writer) error {
	return Wrapped(func(h server.Handler) server.Handler { return evidenceFunc{Handler: h, edit: edit} })
}
