package sched

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Where describes where process pid stands, for a message about a bound
// it missed: its state, the CPU time it has used, and what its threads
// are blocked in (the top frame of each thread's kernel stack, readable
// by root only: "3 in futex_wait_queue, 1 in pipe_read"). It is "" when
// the process cannot be read (it has exited).
func Where(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid)
	state, cpu, ok := readStat(dir + "/stat")
	if !ok {
		return ""
	}
	s := fmt.Sprintf("state %s, %.2f s of CPU used", state, cpu.Seconds())
	if blocked := blockedIn(dir); blocked != "" {
		s += ", threads: " + blocked
	}
	return s
}

// WhereGroup describes where each process of process group pgid stands,
// by [Where], lowest pid first and at most max of them: "sh (pid 7):
// state sleeping, …; cat (pid 9): state sleeping, …". An implementation
// waiting on a child shows only a wait of its own; the child shows what
// holds them both (a full pipe, a read of the terminal). It is "" when no
// process of the group can be read.
func WhereGroup(pgid, max int) string {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var pids []int
	for _, path := range stats {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		if g, ok := readPgrp(path); ok && g == pgid {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
	var parts []string
	for i, pid := range pids {
		if i == max {
			parts = append(parts, fmt.Sprintf("and %d more", len(pids)-max))
			break
		}
		if w := Where(pid); w != "" {
			parts = append(parts, fmt.Sprintf("%s (pid %d): %s", command(pid), pid, w))
		}
	}
	return strings.Join(parts, "; ")
}

// readPgrp reads the process group of a /proc/PID/stat file (field 5).
func readPgrp(path string) (int, bool) {
	f, ok := statFields(path)
	if !ok || len(f) < 3 {
		return 0, false
	}
	g, err := strconv.Atoi(f[2])
	return g, err == nil
}

// statFields reads a /proc/PID/stat file and returns its fields from the
// state (field 3) on. The command name, in parentheses, may hold spaces
// and parentheses itself, so the fields are counted from the last ")".
func statFields(path string) ([]string, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(data[i+1:])), true
}

// command is the command name of process pid ("?" once it has gone).
func command(pid int) string {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(data))
}

// stateNames names the states of /proc/PID/stat.
var stateNames = map[string]string{
	"R": "running", "S": "sleeping", "D": "waiting uninterruptibly (D)", "T": "stopped",
	"t": "stopped by a tracer", "Z": "zombie", "X": "dead", "I": "idle",
}

// readStat reads the state and the CPU time (user and system) of a
// /proc/PID/stat file.
func readStat(path string) (state string, cpu time.Duration, ok bool) {
	f, ok := statFields(path)
	// f[0] is the state (field 3); utime and stime are fields 14 and 15.
	if !ok || len(f) < 13 {
		return "", 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0, false
	}
	state = f[0]
	if name, ok := stateNames[state]; ok {
		state = name
	}
	return state, time.Duration(utime+stime) * time.Second / userHZ, true
}

// blockedIn counts the threads of the process in /proc directory dir by
// the top frame of their kernel stacks, most first: "" when no stack can
// be read (only root may read them).
func blockedIn(dir string) string {
	stacks, _ := filepath.Glob(dir + "/task/*/stack")
	count := map[string]int{}
	for _, path := range stacks {
		data, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		count[topFrame(string(data))]++
	}
	if len(count) == 0 {
		return ""
	}
	frames := make([]string, 0, len(count))
	for f := range count {
		frames = append(frames, f)
	}
	slices.SortFunc(frames, func(a, b string) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(frames))
	for i, f := range frames {
		parts[i] = fmt.Sprintf("%d in %s", count[f], f)
	}
	return strings.Join(parts, ", ")
}

// topFrame is the function name of a kernel stack's first frame
// ("[<0>] pipe_read+0x3d/0x4a0" gives "pipe_read"), "user space" for a
// thread that is running in user space (an empty stack).
func topFrame(stack string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(stack), "\n")
	if line == "" {
		return "user space"
	}
	if _, rest, ok := strings.Cut(line, "] "); ok {
		line = rest
	}
	name, _, _ := strings.Cut(line, "+")
	return name
}
