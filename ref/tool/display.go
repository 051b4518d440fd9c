package tool

import (
	"encoding/json"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/shellexec"
)

// Prompt is the bash tool's display prompt (seed bashToolConfig.prompt).
const Prompt = "$"

// InvalidArgMarker is the plain-text form of the invalid-argument marker
// the seed renders with invalidArgText (DISP-6).
const InvalidArgMarker = "[invalid arg]"

// Render returns the call header of formatShellCall in plain text
// (spec/display.md). It reads the same parse as execution.
func Render(args []byte) string {
	// The members as call.Parse reads them: exact names, the last of a
	// repeated one winning (CALL-11).
	fields, err := protocol.Members(args)
	if err != nil {
		fields = nil
	}
	command, cmdOK := displayString(fields["command"])
	handle, handleOK := displayString(fields["handle"])
	if !cmdOK || !handleOK {
		return Prompt + " " + InvalidArgMarker // DISP-2: before, and whatever, the parse
	}
	parsed := call.Parse(args)
	if !parsed.OK {
		// DISP-3: arguments still arriving name no operation yet; anything
		// that names one and still fails is rejected at execution.
		if command == "" && handle == "" {
			return Prompt + " ..."
		}
		return Prompt + " " + InvalidArgMarker
	}
	op := parsed.Operation
	switch op.Kind {
	case call.Kill: // DISP-4
		return Prompt + " " + op.Handle + " · kill"
	case call.Retrieve:
		return Prompt + " " + op.Handle
	}
	header := Prompt + " " + op.Command
	if op.Timeout != nil && *op.Timeout != 0 { // DISP-5, JavaScript truthiness: 0 shows nothing
		header += " (timeout " + shellexec.FormatJSNumber(*op.Timeout) + "s)"
	}
	return header
}

// displayString reads a field the way the seed's str helper does: a string
// is itself, an absent or null field is "", anything else is not a string.
func displayString(v json.RawMessage) (string, bool) {
	if len(v) == 0 || string(v) == "null" {
		return "", true
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false
	}
	return s, true
}

// Evidence returns the evidence record of a finished call (EVID-1 to EVID-3):
// the command that ran, the handle's command for retrieve and kill, or
// "(rejected shell call)", with the execution facts when the result has
// them.
func (t *Tool) Evidence(args []byte, result protocol.Result) []protocol.EvidenceRecord {
	parsed := call.Parse(args)
	rec := protocol.EvidenceRecord{Kind: "command"}
	switch {
	case !parsed.OK:
		rec.Command = "(rejected shell call)"
	case parsed.Operation.Kind == call.Run:
		rec.Command = parsed.Operation.Command
	default:
		rec.Command = parsed.Operation.Handle
		if t.cfg.Background != nil {
			if cmd, ok := t.cfg.Background.CommandFor(parsed.Operation.Handle); ok {
				rec.Command = cmd
			}
		}
	}
	if result.Details != nil && result.Details.Execution != nil {
		e := result.Details.Execution
		rec.Cwd, rec.Executable, rec.Argv, rec.ExitCode = e.Cwd, e.Executable, e.Argv, e.ExitCode
	}
	return []protocol.EvidenceRecord{rec}
}
