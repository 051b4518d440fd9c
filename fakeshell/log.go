package fakeshell

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// Record is one line of a fake shell's log. Every invocation writes a
// "start" record; one that gets as far as exiting on its own writes an
// "end" record; the events between say what it did.
type Record struct {
	// Event is start, stdin, tty, hold, detach, trace, job, leaderless or
	// end.
	Event string `json:"event"`
	Tag   string `json:"tag"`
	Pid   int    `json:"pid"`

	// start: the process as it began.
	Ppid int      `json:"ppid,omitempty"`
	Pgid int      `json:"pgid,omitempty"`
	Sid  int      `json:"sid,omitempty"`
	Args []string `json:"args,omitempty"`
	// PATH is the PATH the shell was started with; HasPATH says whether it had
	// one at all.
	PATH    string `json:"path,omitempty"`
	HasPATH bool   `json:"hasPath,omitempty"`
	Home    string `json:"home,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// Stdin is what fd 0 is, as /proc/self/fd/0 names it.
	Stdin string `json:"stdin,omitempty"`
	// TTYNr is the controlling terminal's device number from
	// /proc/self/stat; 0 means none. CTTY names it ("none" when there is
	// none).
	TTYNr int    `json:"ttyNr"`
	CTTY  string `json:"ctty,omitempty"`

	// stdin and tty: what was read, or why nothing was.
	Read  *string `json:"read,omitempty"`
	Error string  `json:"error,omitempty"`
	// tty: the terminal's foreground group when it was opened, and
	// whether the shell made its own group the foreground.
	Foreground int  `json:"foreground,omitempty"`
	Grabbed    bool `json:"grabbed,omitempty"`
	// hold, detach, trace, job and leaderless: the child left behind (for
	// trace, the tracer).
	Child int `json:"child,omitempty"`
	// leaderless: whether the child was seen with its main thread exited
	// and another thread alive.
	Leaderless bool `json:"leaderless,omitempty"`

	// end
	Exit *int `json:"exit,omitempty"`
	// Wrote, at the end, is when the shell finished writing its output:
	// seconds since the process started, by the kernel's record of its
	// start (the implementation's fork), to a hundredth of a second. It is
	// the evidence of who missed a time bound (the bound command): a
	// shell that wrote within the bound had its answer in on time. Absent
	// where the start time cannot be read (no /proc).
	Wrote *float64 `json:"wrote,omitempty"`
	// Late, at the end of a shell that waited for AtMS, is the worst
	// lateness of its own timers in the last second of that wait: how
	// much later than asked a sleep of at most lateStep woke, in seconds.
	// It is the machine's witness for a bound the implementation should
	// have enforced while the shell waited (bound -beyond): a machine
	// that woke this shell's timers on time would have woken the
	// implementation's too.
	Late *float64 `json:"late,omitempty"`

	Time time.Time `json:"time"`
}

// appendRecord appends r to the log at path as one line, in one write, so
// concurrent shells never interleave.
func appendRecord(path string, r Record) {
	r.Time = time.Now()
	data, err := json.Marshal(r)
	if err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakeshell: log:", err)
		return
	}
	defer f.Close()
	f.Write(append(data, '\n'))
}

// Invocation is everything one fake shell process logged.
type Invocation struct {
	Start  Record
	Events []Record
	// End is nil when the shell did not exit on its own (it was killed).
	End *Record
}

// ReadLog reads a fake shell log and groups it by invocation, in the order
// the invocations started. A recording shell's invocation has no end: it
// became another program.
func ReadLog(path string) ([]Invocation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read fake shell log: %w", err)
	}
	var out []Invocation
	byPid := map[int]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("read fake shell log %s: %w", path, err)
		}
		if r.Event == "start" {
			byPid[r.Pid] = len(out)
			out = append(out, Invocation{Start: r})
			continue
		}
		i, ok := byPid[r.Pid]
		if !ok {
			continue
		}
		if r.Event == "end" {
			r := r
			out[i].End = &r
		} else {
			out[i].Events = append(out[i].Events, r)
		}
	}
	return out, sc.Err()
}
