package script

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/rogpeppe/go-internal/testscript"
)

type stateKey struct{}

// state is one scenario's runner state.
type state struct {
	cfg    *Config
	ts     *testscript.TestScript
	marker string
	client *client.Client
	calls  map[string]*client.Pending
	// last is the last response a command received, the root of `field`.
	last     *protocol.Response
	lastCall *client.Pending
	// lastNote is the CaseNote of the last non-call answer, for the
	// failures of the commands that read it.
	lastNote string
	// rssMark is the peak memory `rss mark` recorded, in bytes.
	rssMark int64
	// aborted holds the ids of the calls an abort request targeted, and
	// abortedAll is set once shutdown or end of input aborted every call:
	// only such a call may end cancelled, with no result (PROTO-24).
	aborted    map[string]bool
	abortedAll bool
	// own are the processes that carried the marker when the
	// implementation answered hello: its own, not a command's (see
	// client.Snapshot).
	own client.Snapshot
	// rec is the scenario's transcript, once opened (transcript.go).
	rec *client.Transcript
	// t is the scenario's testscript.T, which ends it as inconclusive
	// (bound.go); erroredNow says the last failure was an error, which no
	// evidence about the machine excuses.
	t          testscript.T
	erroredNow bool
}

// wasAborted reports whether the call p was aborted: sent with an aborted
// signal, targeted by an abort request, or in flight at shutdown or end
// of input.
func (s *state) wasAborted(p *client.Pending) bool {
	return p.Request.Aborted || s.aborted[p.ID] || s.abortedAll
}

func newState(cfg *Config) *state {
	var b [8]byte
	rand.Read(b[:])
	s := &state{cfg: cfg, marker: hex.EncodeToString(b[:]), calls: map[string]*client.Pending{},
		aborted: map[string]bool{}}
	s.cfg.Tracker.TrackMarker(s.marker, true)
	return s
}

func getState(ts *testscript.TestScript) *state {
	s := ts.Value(stateKey{}).(*state)
	s.ts = ts
	return s
}

// errored fails the scenario as errored, with the implementation's stderr.
func (s *state) errored(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.erroredNow = true
	if s.client != nil {
		if tail := strings.TrimSpace(s.client.StderrTail()); tail != "" {
			msg += "\nimplementation stderr (tail):\n" + tail
		}
	}
	s.ts.Fatalf("%s %s", suite.ErroredTag, msg)
}

// check fails the scenario for err: as errored when the implementation broke
// the protocol, as failed otherwise; a runner's bound that the machine, not
// the implementation, made it miss ends the scenario inconclusive.
func (s *state) check(err error) {
	if err == nil {
		return
	}
	s.inconclusiveIfHeld(err)
	if isBroken(err) {
		s.errored("%v", err)
	}
	s.ts.Fatalf("%v", err)
}

// implEnv is the environment the implementation starts with: the
// scenario's variables as they are now, the marker, and the overrides.
func (s *state) implEnv(overrides []string, unset map[string]bool) []string {
	names := append([]string(nil), initialEnvNames...)
	names = append(names, "SHELL", "USER", "LOGNAME", "LANG", "LC_ALL", "TERM", "TZ")
	seen := map[string]bool{}
	var env []string
	for _, n := range names {
		if seen[n] || unset[n] {
			continue
		}
		seen[n] = true
		if v := s.ts.Getenv(n); v != "" {
			env = append(env, n+"="+v)
		}
	}
	env = append(env, client.MarkerVariable+"="+s.marker)
	return append(env, overrides...)
}

// ensureClient starts the implementation if it is not running.
func (s *state) ensureClient() *client.Client {
	if s.client == nil {
		s.start(nil, nil)
	}
	return s.client
}

func (s *state) start(overrides []string, unset map[string]bool) {
	s.startWith(startOptions{}, overrides, unset)
}

// startWith starts the implementation, under a terminal or a bin overlay
// when opt asks for one (pathprobe.go). A scenario may start it again once
// it has exited.
func (s *state) startWith(opt startOptions, overrides []string, unset map[string]bool) {
	if s.client != nil && !s.client.Exited() {
		s.ts.Fatalf("implementation already started")
	}
	var c *client.Client
	var err error
	if opt.zero() {
		c, err = client.Start(s.cfg.Impl, s.implEnv(overrides, unset), s.ts.Getenv("WORK"), s.cfg.bound(), s.clientOptions())
	} else {
		c, err = s.startSpecial(opt, s.implEnv(overrides, unset))
	}
	if err != nil {
		s.inconclusiveIfHeld(err)
		s.errored("start implementation %q: %v", strings.Join(s.cfg.Impl, " "), err)
	}
	s.client = c
	s.own = client.Snap(s.marker, c.Pid())
	hello := c.Hello
	s.last = &hello
}

// stop ends the implementation at the end of a scenario and reaps what it
// left behind.
func (s *state) stop() {
	if s.client != nil && !s.client.Exited() {
		if s.client.Broken() != nil || s.client.Shutdown(5*time.Second) != nil {
			s.client.Kill()
		}
	}
	client.Reap(s.marker, 0)
	s.cfg.Tracker.TrackMarker(s.marker, false)
}

// inconclusiveIfHeld ends the scenario inconclusive when err is a runner's
// bound that the machine, not the implementation, made it miss
// (client.NoAnswerError.Inconclusive); otherwise it returns.
func (s *state) inconclusiveIfHeld(err error) {
	var miss *client.NoAnswerError
	if errors.As(err, &miss) && miss.Inconclusive {
		s.inconclusive(fmt.Sprintf("inconclusive: the machine held the implementation back for as long as its answer was late: %v; rerun on a quieter machine", err))
	}
}

func isBroken(err error) bool { return errors.Is(err, client.ErrBroken) }
