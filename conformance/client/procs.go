package client

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// MarkerVariable is set in every implementation's environment to a value
// unique to the scenario, so every process the implementation starts (and
// does not scrub) can be found in /proc and reaped.
const MarkerVariable = "APEXCHECK_MARK"

// Survivors lists the live processes carrying marker in their
// environment, except exclude and this process.
func Survivors(marker string, exclude int) []int {
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

// Reap kills every process carrying marker, except exclude, until none is
// left (within a bound: a process that forks faster than it is killed can
// outlast it).
func Reap(marker string, exclude int) {
	for range 50 {
		pids := Survivors(marker, exclude)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Snapshot is a set of processes, each known by its pid and start time, so
// that a pid the system reuses later is not taken for the process.
type Snapshot map[int]string

// Snap records the live processes carrying marker, other than exclude and
// this process. Taken once the implementation has answered hello, before
// any call, it holds the implementation's own processes: the MCP server
// the bridge started and talks to, say, or a helper an adapter runs. No
// command has run yet, so none of them is a command's.
func Snap(marker string, exclude int) Snapshot {
	s := Snapshot{}
	for _, pid := range Survivors(marker, exclude) {
		if t := startTime(pid); t != "" {
			s[pid] = t
		}
	}
	return s
}

// Has reports whether pid is a process s recorded, still the same one.
func (s Snapshot) Has(pid int) bool {
	t, ok := s[pid]
	return ok && startTime(pid) == t
}

// startTime is the start time of process pid (field 22 of its stat file,
// in clock ticks since boot), or "" when it is gone.
func startTime(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	// The fields after the parenthesised command name, which may itself
	// contain spaces and parentheses: state is field 3, starttime 22.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(data[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}
