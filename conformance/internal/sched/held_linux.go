package sched

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc/stat's times. The kernel exports it in units
// of USER_HZ, 100 on every Linux architecture Go runs on.
const userHZ = 100

// Sample reads how long the machine has held process pid back so far: the
// second field of each /proc/PID/task/TID/schedstat, summed; its control
// group's throttled time (cpu.stat: throttled_usec in v2, throttled_time
// in v1); and the steal time of /proc/stat.
func Sample(pid int) Held {
	waited, ok := runQueueWait(pid)
	if !ok {
		return Held{}
	}
	return Held{Waited: waited, Throttled: throttledTime(pid), Stolen: stolenTime(), OK: true}
}

// runQueueWait sums the run-queue waits of the threads of process pid.
func runQueueWait(pid int) (time.Duration, bool) {
	tasks, err := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/schedstat")
	if err != nil || len(tasks) == 0 {
		return 0, false
	}
	var wait time.Duration
	for _, task := range tasks {
		data, err := os.ReadFile(task)
		if err != nil {
			continue // the thread has exited since the listing
		}
		f := strings.Fields(string(data))
		if len(f) < 2 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return 0, false
		}
		wait += time.Duration(ns)
	}
	return wait, true
}

// throttledTime is how long the CPU control group of process pid has been
// throttled, 0 where none is found (no quota, or no cgroup file system).
func throttledTime(pid int) time.Duration {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		var file, key string
		var unit time.Duration
		switch {
		case parts[0] == "0" && parts[1] == "":
			file, key, unit = filepath.Join("/sys/fs/cgroup", parts[2], "cpu.stat"), "throttled_usec", time.Microsecond
		case hasController(parts[1], "cpu"):
			file, key, unit = filepath.Join("/sys/fs/cgroup", parts[1], parts[2], "cpu.stat"), "throttled_time", time.Nanosecond
		default:
			continue
		}
		if d, ok := statValue(file, key); ok {
			return d * unit
		}
	}
	return 0
}

// hasController reports whether a v1 hierarchy's controller list (such as
// "cpu,cpuacct") holds name.
func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// statValue reads the value of key from a cgroup stat file of "key value"
// lines.
func statValue(file, key string) (time.Duration, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, " "); ok && k == key {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Duration(n), err == nil
		}
	}
	return 0, false
}

// stolenTime is the steal time of all CPUs since boot: the eighth value of
// /proc/stat's "cpu" line, 0 where it cannot be read (a kernel that keeps
// none counts as no steal).
func stolenTime() time.Duration {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(data), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	ticks, err := strconv.ParseInt(f[8], 10, 64)
	if err != nil {
		return 0
	}
	return time.Duration(ticks) * time.Second / userHZ
}
