// Package protocol defines the wire protocol between the apexcheck runner and an
// implementation of the bash tool under test.
//
// The protocol is newline-delimited JSON on the implementation's standard input
// (requests) and standard output (responses). Every request carries an ID that
// its response repeats, so requests may be in flight concurrently. The
// normative description is spec/protocol.md; the JSON Schema is
// spec/protocol.schema.json. The types here are used by both the conformance
// runner and the reference server, so the two cannot drift apart.
package protocol

import "encoding/json"

// Version is the protocol version this package speaks.
const Version = 1

// Message types. A request and its response share a type, except for the
// responses "update" (zero or more before a call's result), "result" (the
// answer to "call") and "error" (the answer to a request the implementation
// could not understand).
const (
	TypeHello      = "hello"
	TypeCall       = "call"
	TypeUpdate     = "update"
	TypeResult     = "result"
	TypeAbort      = "abort"
	TypePermission = "permission"
	TypeRender     = "render"
	TypeShutdown   = "shutdown"
	TypeError      = "error"
)

// Capabilities an implementation may declare in its hello response. A
// scenario that needs a capability the implementation did not declare is
// skipped, never sent.
const (
	CapBackground  = "background"   // background launch, retrieve and kill (spec/background.md)
	CapPermissions = "permissions"  // the permission request (spec/permissions.md)
	CapPathProbe   = "path-probe"   // the login-shell PATH probe (spec/path-probe.md)
	CapUpdates     = "updates"      // streamed updates during a call (spec/output.md)
	CapRender      = "render"       // the render request (spec/display.md)
	CapEvidence    = "evidence"     // evidence records in call results (spec/display.md)
	CapShellPath   = "shell-path"   // the shellPath tool option (spec/exec.md)
	CapAbort       = "abort"        // the abort request (spec/exec.md)
	CapSessionEnv  = "session-env"  // APEX_CODE_* session environment (spec/exec.md)
	CapFullOutput  = "full-output"  // truncation with a full-output file (spec/output.md)
	CapProcessTree = "process-tree" // own session per command; whole-tree kill (spec/exec.md)
)

// Request is any message the runner sends. Fields unused by a type are
// omitted on the wire.
type Request struct {
	ID   string `json:"id"`
	Type string `json:"type"`

	// hello
	Versions []int `json:"versions,omitempty"`

	// call, permission and render: the raw tool arguments exactly as a model
	// sent them. Any JSON value is allowed, malformed shapes included.
	Arguments json.RawMessage `json:"arguments,omitempty"`

	// call
	Cwd      string       `json:"cwd,omitempty"`
	Options  *ToolOptions `json:"options,omitempty"`
	Session  *Session     `json:"session,omitempty"`
	Updates  bool         `json:"updates,omitempty"`  // stream update messages
	Evidence bool         `json:"evidence,omitempty"` // include the evidence record
	// Aborted hands the tool an abort signal that is already aborted when
	// the call starts, as a host does for a call cancelled before it ran.
	Aborted bool `json:"aborted,omitempty"`

	// abort: the ID of the call to abort.
	Target string `json:"target,omitempty"`

	// permission
	Rules []Rule `json:"rules,omitempty"`
}

// ToolOptions are the options the tool is constructed with.
type ToolOptions struct {
	CommandPrefix string `json:"commandPrefix,omitempty"`
	ShellPath     string `json:"shellPath,omitempty"`
	// ExposeSessionEnvironment defaults to true when absent.
	ExposeSessionEnvironment *bool `json:"exposeSessionEnvironment,omitempty"`
}

// Session is the agent session a call runs in. Absent means no session
// context.
type Session struct {
	ID             string `json:"id"`
	File           string `json:"file,omitempty"`
	Provider       string `json:"provider,omitempty"`
	Model          string `json:"model,omitempty"`
	ReasoningLevel string `json:"reasoningLevel,omitempty"`
}

// Response is any message an implementation sends.
type Response struct {
	ID   string `json:"id"`
	Type string `json:"type"`

	// hello
	Protocol       int             `json:"protocol,omitempty"`
	Implementation *Implementation `json:"implementation,omitempty"`
	Capabilities   []string        `json:"capabilities,omitempty"`

	// update and result
	Result *Result `json:"result,omitempty"`

	// result, when the call asked for evidence
	Evidence []EvidenceRecord `json:"evidence,omitempty"`

	// permission
	Permission *PermissionAnswer `json:"permission,omitempty"`

	// render
	Header string `json:"header,omitempty"`

	// error
	Error *Error `json:"error,omitempty"`

	// Raw is the message exactly as it was received, kept by readers that
	// judge members the struct cannot tell apart (an absent exitCode and a
	// null one decode alike). It is never encoded.
	Raw json.RawMessage `json:"-"`
}

// Implementation names the implementation under test.
type Implementation struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Language string `json:"language"`
	Homepage string `json:"homepage,omitempty"`
}

// Result is a tool result as the model receives it.
type Result struct {
	IsError bool     `json:"isError"`
	Text    string   `json:"text"`
	Details *Details `json:"details,omitempty"`
}

// Details are the tool result's structured details. They are never shown to
// the model.
type Details struct {
	Truncation     *Truncation `json:"truncation,omitempty"`
	FullOutputPath string      `json:"fullOutputPath,omitempty"`
	Execution      *Execution  `json:"execution,omitempty"`
}

// Truncation describes how the model-visible output was cut.
type Truncation struct {
	Truncated       bool   `json:"truncated"`
	TruncatedBy     string `json:"truncatedBy"` // "lines" or "bytes"; truncation is sent only when truncated
	TotalLines      int    `json:"totalLines"`
	TotalBytes      int64  `json:"totalBytes"`
	OutputLines     int    `json:"outputLines"`
	OutputBytes     int    `json:"outputBytes"`
	LastLinePartial bool   `json:"lastLinePartial"`
	MaxLines        int    `json:"maxLines"`
	MaxBytes        int    `json:"maxBytes"`
}

// Execution are the facts observed at the execution boundary.
type Execution struct {
	Cwd        string   `json:"cwd"`
	Executable string   `json:"executable,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	// ExitCode is null when the command did not run to an exit status
	// (timeout, abort, a background launch, a running background command).
	ExitCode *int `json:"exitCode"`
	// Signal names the signal that ended the shell, when one did (EXEC-17).
	Signal string `json:"signal,omitempty"`
}

// Rule is one permission rule (spec/permissions.md).
type Rule struct {
	Source   string  `json:"source"`
	Behavior string  `json:"behavior"`
	Content  *string `json:"content,omitempty"`
}

// SameRule reports whether a and b are the same rule: both nil, or equal
// in source, behaviour and content (an absent content differs from "").
func SameRule(a, b *Rule) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Source != b.Source || a.Behavior != b.Behavior || (a.Content == nil) != (b.Content == nil) {
		return false
	}
	return a.Content == nil || *a.Content == *b.Content
}

// PermissionAnswer is every permission function of the tool applied to one
// call, plus the engine's decision for the given rules.
type PermissionAnswer struct {
	Decision        string   `json:"decision"` // allow, deny or ask
	Rule            *Rule    `json:"rule"`     // the winning rule, or null
	Unknown         bool     `json:"unknown"`
	Segments        []string `json:"segments"` // null unless the command classifies as segments
	DefaultBehavior string   `json:"defaultBehavior"`
	RuleForCall     *string  `json:"ruleForCall"`
	Preview         []string `json:"preview"`
	Descriptions    []string `json:"descriptions"` // describe() of each rule's content, in order
}

// EvidenceRecord is the evidence a call leaves behind (spec/display.md).
type EvidenceRecord struct {
	Kind       string   `json:"kind"`
	Command    string   `json:"command"`
	Cwd        string   `json:"cwd,omitempty"`
	Executable string   `json:"executable,omitempty"`
	Argv       []string `json:"argv,omitempty"`
	ExitCode   *int     `json:"exitCode,omitempty"`
}

// Error is a protocol-level error: the request itself could not be served.
// A tool call that fails is not a protocol error; it is a Result with
// IsError set.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Protocol error codes.
const (
	ErrBadRequest  = "bad-request"  // not JSON, no id, unknown type, bad field
	ErrUnsupported = "unsupported"  // a capability the implementation did not declare
	ErrDuplicateID = "duplicate-id" // an id still in flight
)
