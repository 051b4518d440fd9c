package conformance

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/rogpeppe/go-internal/testscript"
)

// MarkerVariable is set in every implementation's environment to a value
// unique to the scenario, so every process the implementation starts (and
// does not scrub) can be found in /proc and reaped.
const MarkerVariable = "APEXCHECK_MARK"

// ErroredTag starts the failure message of a scenario that errored (the
// implementation crashed, hung past a bound or broke the protocol) rather
// than failed an assertion. Reports key on it.
const ErroredTag = "[errored]"

type stateKey struct{}

// state is one scenario's runner state.
type state struct {
	cfg    *Config
	ts     *testscript.TestScript
	marker string
	client *Client
	calls  map[string]*Pending
	// last is the last response a command received, the root of `field`.
	last     *protocol.Response
	lastCall *Pending
	// rssMark is the peak memory `rss mark` recorded, in bytes.
	rssMark int64
}

func newState(cfg *Config) *state {
	var b [8]byte
	rand.Read(b[:])
	s := &state{cfg: cfg, marker: hex.EncodeToString(b[:]), calls: map[string]*Pending{}}
	trackMarker(s.marker, true)
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
	if s.client != nil {
		if tail := strings.TrimSpace(s.client.StderrTail()); tail != "" {
			msg += "\nimplementation stderr (tail):\n" + tail
		}
	}
	s.ts.Fatalf("%s %s", ErroredTag, msg)
}

// check fails the scenario for err: as errored when the implementation broke
// the protocol, as failed otherwise.
func (s *state) check(err error) {
	if err == nil {
		return
	}
	if isBroken(err) {
		s.errored("%v", err)
	}
	s.ts.Fatalf("%v", err)
}

// implEnv is the environment the implementation starts with: the
// scenario's variables as they are now, the marker, and the overrides.
func (s *state) implEnv(overrides []string, unset map[string]bool) []string {
	names := append([]string(nil), s.cfg.envNames...)
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
	env = append(env, MarkerVariable+"="+s.marker)
	return append(env, overrides...)
}

// ensureClient starts the implementation if it is not running.
func (s *state) ensureClient() *Client {
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
	var c *Client
	var err error
	if opt.zero() {
		c, err = StartClient(s.cfg.Impl, s.implEnv(overrides, unset), s.ts.Getenv("WORK"), s.cfg.bound())
	} else {
		c, err = s.startSpecial(opt, s.implEnv(overrides, unset))
	}
	if err != nil {
		s.errored("start implementation %q: %v", strings.Join(s.cfg.Impl, " "), err)
	}
	s.client = c
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
	reap(s.marker, 0)
	trackMarker(s.marker, false)
}

// survivors lists processes carrying marker, except exclude and this
// process.
func survivors(marker string, exclude int) []int {
	needle := []byte(MarkerVariable + "=" + marker + "\x00")
	self := os.Getpid()
	matches, _ := filepath.Glob("/proc/[0-9]*/environ")
	var pids []int
	for _, m := range matches {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(m)))
		if err != nil || pid == self || pid == exclude {
			continue
		}
		if carries(filepath.Dir(m), needle) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// carries reports whether the process of /proc directory dir is alive with
// needle in its environment. A process whose main thread has exited while
// other threads run on (pthread_exit in its main thread) shows as a zombie
// in dir/stat and has an empty dir/environ, so its threads are looked at
// instead: it is alive while one of them is.
func carries(dir string, needle []byte) bool {
	if !isZombieStat(dir + "/stat") {
		data, err := os.ReadFile(dir + "/environ")
		return err == nil && containsBytes(data, needle)
	}
	tasks, _ := filepath.Glob(dir + "/task/[0-9]*")
	for _, t := range tasks {
		if isZombieStat(t + "/stat") {
			continue
		}
		if data, err := os.ReadFile(t + "/environ"); err == nil && containsBytes(data, needle) {
			return true
		}
	}
	return false
}

// isZombieStat reports whether the process or thread whose stat file is
// path has ended: a zombie, dead, or gone.
func isZombieStat(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return true
	}
	// The state follows the parenthesised command name, which may itself
	// contain parentheses.
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || i+2 >= len(data) || data[i+2] == 'Z' || data[i+2] == 'X'
}

func containsBytes(hay, needle []byte) bool {
	return strings.Contains("\x00"+string(hay), "\x00"+string(needle))
}

// reap kills every process carrying marker, except exclude.
func reap(marker string, exclude int) {
	for range 50 {
		pids := survivors(marker, exclude)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isBroken(err error) bool { return errors.Is(err, ErrBroken) }
