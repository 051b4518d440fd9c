package client

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/internal/sched"
	"github.com/apexcheck/apexcheck/protocol"
)

// slowHello answers hello after a delay, with the request's own id, and
// then reads on, answering nothing.
func slowHello(delay string) []string {
	return []string{"sh", "-c", `read line; sleep ` + delay + `; id=$(printf '%s' "$line" | sed 's/.*"id":"\([^"]*\)".*/\1/');` +
		` printf '{"id":"%s","type":"hello","protocol":1,"implementation":{"name":"slow","version":"1","language":"sh"},"capabilities":[]}\n' "$id"; cat >/dev/null`}
}

// holdAll plays a machine that held every process back for all the time
// since the test began: every wait is excused.
func holdAll(t *testing.T) {
	origin := time.Now()
	sampleHeld = func(int) sched.Held { return sched.Held{Waited: time.Since(origin), OK: true} }
	t.Cleanup(func() { sampleHeld = sched.Sample })
}

// TestAwaitExcusedByTheMachine: past the runner's bound, an answer the
// machine delayed is still the answer, and an answer it kept away for as
// long again is reported as the machine's doing, not the implementation's.
func TestAwaitExcusedByTheMachine(t *testing.T) {
	holdAll(t)
	// Answers 0.3 s past the bound, 0.7 s before the extension runs out:
	// slack for a loaded machine.
	c, err := Start(slowHello("1.3"), os.Environ(), t.TempDir(), time.Second, Options{})
	if err != nil {
		t.Fatalf("a hello the machine held back past the bound: %v", err)
	}
	c.Kill()

	_, err = Start([]string{"sleep", "30"}, os.Environ(), t.TempDir(), 300*time.Millisecond, Options{})
	var miss *NoAnswerError
	if !errors.As(err, &miss) || !miss.Inconclusive {
		t.Fatalf("an implementation held back for twice the bound: err %v, want an inconclusive NoAnswerError", err)
	}
	if !strings.Contains(err.Error(), "even with as long again while the machine held it back") {
		t.Errorf("the message does not say the machine held it back: %v", err)
	}
}

// TestAwaitWithinIsNotExtended: a scenario's own bound stands whatever the
// machine did.
func TestAwaitWithinIsNotExtended(t *testing.T) {
	c, err := Start(slowHello("0"), os.Environ(), t.TempDir(), 10*time.Second, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Kill()
	holdAll(t)
	p, err := c.Send(protocol.Request{Type: protocol.TypeCall, Arguments: json.RawMessage(`{"command":"true"}`)})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = c.AwaitWithin(p, 200*time.Millisecond)
	var miss *NoAnswerError
	if !errors.As(err, &miss) || miss.Inconclusive {
		t.Fatalf("err %v, want a NoAnswerError the machine does not excuse", err)
	}
	// The bound, plus slack for a loaded machine; an extension would take
	// the bound again.
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("AwaitWithin took %v", d)
	}
}

// TestNoAnswerEvidence: a missed bound says what the machine shows of the
// implementation: the request it never read, and where it stands.
func TestNoAnswerEvidence(t *testing.T) {
	_, err := Start([]string{"sleep", "30"}, os.Environ(), t.TempDir(), time.Second, Options{})
	var miss *NoAnswerError
	if !errors.As(err, &miss) {
		t.Fatalf("err %v, want a NoAnswerError", err)
	}
	if miss.Inconclusive {
		t.Skipf("the machine held a sleeping process back for a second: %v", err)
	}
	if _, statErr := os.Stat("/proc/self/schedstat"); statErr != nil {
		t.Skip("no /proc accounting here")
	}
	for _, want := range []string{"bytes of requests lay unread on its stdin", "its processes: sleep (pid ", "state sleeping", "since the request: its threads waited "} {
		if !strings.Contains(miss.Evidence, want) {
			t.Errorf("evidence %q does not contain %q", miss.Evidence, want)
		}
	}
}

// TestExcusedWhileAnswerUnread: an answer the implementation wrote but the
// runner's reader has yet to read excuses a missed bound; nothing else
// does without the machine's accounting.
func TestExcusedWhileAnswerUnread(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	c := &Client{stdoutPipe: r}
	p := &Pending{}
	long := time.Now().Add(-time.Hour)
	if c.excused(p, 1<<30, long, time.Second) {
		t.Fatal("excused with nothing unread and no accounting")
	}
	w.Write([]byte("{}\n"))
	if pending(r) == 0 {
		t.Skip("FIONREAD cannot say what a pipe holds here")
	}
	if !c.excused(p, 1<<30, long, time.Second) {
		t.Error("an answer lying in the pipe does not excuse the bound")
	}
}
