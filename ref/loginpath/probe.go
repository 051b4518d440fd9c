package loginpath

import (
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options vary a probe. The zero value is the specified probe; the fields
// exist so tests, and the kit's broken variants, can change one aspect.
type Options struct {
	// Env is the environment the shell starts with and $SHELL is read
	// from. Nil means os.Environ().
	Env []string
	// Bound replaces Bound when positive.
	Bound time.Duration
	// Grace replaces Grace when positive.
	Grace time.Duration
	// Fallback replaces FallbackShells when not nil.
	Fallback []string
	// Attr, when not nil, replaces the attributes the shell starts with:
	// a new session (PATH-4) and, on Linux, a parent-death signal
	// (PATH-26).
	Attr *syscall.SysProcAttr
	// Select, when not nil, replaces Select. It sees stdout up to its first
	// RetainLimit bytes.
	Select func(stdout []byte) []byte
	// Check, when not nil, replaces Check.
	Check func(candidate []byte) error
	// MergeStderr sends the shell's stderr where its stdout goes instead
	// of discarding it, as PATH-4 forbids; it exists for the kit's broken
	// variants.
	MergeStderr bool
	// Reap, when not nil, replaces KillSession as the way the probe's
	// processes are ended when the exchange ends. It is given the shell's
	// process ID, which is also its session and process group ID.
	Reap func(pid int)
}

// RetainLimit is how much of stdout a probe keeps verbatim for
// Options.Select. Select itself needs only the bytes after the last line
// feed, however long stdout is.
const RetainLimit = 1 << 20

// Result is the outcome of one probe.
type Result struct {
	// PATH is the probed PATH; it is meaningful only when OK.
	PATH string
	OK   bool
	// Shell is the shell that ran, or "" when none was chosen.
	Shell string
	// Err says why the probe failed; nil when OK.
	Err error
}

// Cached probes at most once however many goroutines ask, and remembers a
// failure as firmly as a success (PATH-18, PATH-19).
type Cached struct {
	// Options configure the one probe.
	Options Options

	once sync.Once
	res  Result
}

// Result runs the probe on the first call and returns its result; calls
// made while it runs wait for it.
func (c *Cached) Result() Result {
	c.once.Do(func() { c.res = Probe(c.Options) })
	return c.res
}

// LoginPATH is Result in the shape of tool.Config.LoginPATH.
func (c *Cached) LoginPATH() (string, bool) {
	r := c.Result()
	return r.PATH, r.OK
}

// process is the probe of this process: ADR 0045 caches the probed PATH per
// process (decision 2), however many tools the process builds.
var process Cached

// LoginPATH returns this process's login PATH and whether the probe
// succeeded, probing on the first call (PATH-16). It is what the reference
// wires into tool.Config.LoginPATH.
func LoginPATH() (string, bool) { return process.LoginPATH() }

// lookupEnv returns the last value of name in env, as exec does when a
// name is repeated, and whether it is set at all.
func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// collector keeps what the decision needs of a stdout that may be
// arbitrarily long: the bytes after the last line feed, at most MaxLen+1 of
// them (a longer candidate fails PATH-13 whatever it holds), and the first
// RetainLimit bytes verbatim for Options.Select.
type collector struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte
	tailLen int
}

func (c *collector) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := RetainLimit - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(room, len(p))]...)
	}
	rest := p
	if i := lastLF(p); i >= 0 {
		c.tail, c.tailLen = c.tail[:0], 0
		rest = p[i+1:]
	}
	c.tailLen += len(rest)
	if room := MaxLen + 1 - len(c.tail); room > 0 {
		c.tail = append(c.tail, rest[:min(room, len(rest))]...)
	}
	return len(p), nil
}

func lastLF(p []byte) int {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '\n' {
			return i
		}
	}
	return -1
}

// candidate returns the candidate PATH and its true length.
func (c *collector) candidate(sel func([]byte) []byte) ([]byte, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sel != nil {
		out := sel(c.head)
		return out, len(out)
	}
	return append([]byte(nil), c.tail...), c.tailLen
}
