package script

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/rogpeppe/go-internal/testscript"
)

// endedT is the kit's runner's testscript.T as far as inconclusive goes:
// it records the outcome, and Skip ends the scenario by panicking.
type endedT struct {
	testscript.T
	inconclusive string
}

type skipped struct{}

func (t *endedT) Inconclusive(msg string) { t.inconclusive = msg }
func (t *endedT) Skip(...any)             { panic(skipped{}) }

// ends runs f and reports whether it ended the scenario.
func ends(f func()) (ended bool) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(skipped); !ok {
				panic(p)
			}
			ended = true
		}
	}()
	f()
	return false
}

// TestInconclusiveIfHeld: a runner's bound the machine made the
// implementation miss ends the scenario inconclusive, at the start as at
// any await; a miss the machine does not excuse goes on to be errored.
func TestInconclusiveIfHeld(t *testing.T) {
	held := &client.NoAnswerError{Type: "hello", ID: "r1", Bound: 30 * time.Second, Inconclusive: true,
		Evidence: "since the request: its threads waited 31.00 s for a CPU"}
	for _, err := range []error{held, &client.StartError{Err: fmt.Errorf("handshake: %w", held)}} {
		rt := &endedT{}
		s := &state{t: rt}
		if !ends(func() { s.inconclusiveIfHeld(err) }) {
			t.Errorf("%v: the scenario went on", err)
			continue
		}
		if !strings.HasPrefix(rt.inconclusive, "inconclusive: the machine held the implementation back") ||
			!strings.Contains(rt.inconclusive, "waited 31.00 s for a CPU") {
			t.Errorf("inconclusive message %q", rt.inconclusive)
		}
	}
	for _, err := range []error{
		&client.NoAnswerError{Type: "call", ID: "r2", Bound: 30 * time.Second},
		errors.New("something else"),
	} {
		s := &state{t: &endedT{}}
		if ends(func() { s.inconclusiveIfHeld(err) }) {
			t.Errorf("%v: ended the scenario as inconclusive", err)
		}
	}
}
