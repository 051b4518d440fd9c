package verdict

import (
	"errors"
	"strings"

	"github.com/apexcheck/apexcheck/conformance/client"
)

// SetupError is a run that never reached its scenarios: the
// implementation could not be started or did not complete the handshake.
type SetupError struct {
	// Message is the error, without the stderr tail.
	Message string `json:"message"`
	// Stderr is the tail of what the implementation wrote to stderr, which
	// usually says why (a missing module, a syntax error).
	Stderr string `json:"stderr,omitempty"`
}

// NewSetupError describes err, taking the stderr tail out of a
// *StartError so that each report can show it apart.
func NewSetupError(err error) *SetupError {
	var se *client.StartError
	if errors.As(err, &se) {
		return &SetupError{Message: se.Err.Error(), Stderr: se.Stderr}
	}
	return &SetupError{Message: err.Error()}
}

// Text is the error and the stderr tail as a person reads them.
func (e *SetupError) Text() string {
	if e.Stderr == "" {
		return e.Message
	}
	return e.Message + "\nimplementation stderr (tail):\n" + "  " + strings.ReplaceAll(e.Stderr, "\n", "\n  ")
}

// setupSummary is the one-line headline of a setup error.
func (e *SetupError) setupSummary() string {
	first, _, _ := strings.Cut(e.Message, "\n")
	return "the implementation could not be started: " + first
}
