package fakeshell

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of the start time in /proc/PID/stat: 100
// on every Linux architecture Go supports.
const clockTicks = 100

// sinceStart is how long ago this process started, by the kernel's start
// time (field 22 of /proc/self/stat) against the time since boot in
// /proc/uptime; both count from boot, in hundredths of a second. It is 0
// when either cannot be read, so a wait falls back to counting from now.
func sinceStart() time.Duration {
	d, _ := sinceStartKnown()
	return d
}

// sinceStartKnown is sinceStart, and whether it could be read at all.
func sinceStartKnown() (time.Duration, bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return 0, false
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return 0, false
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0, false
	}
	secs, _, _ := strings.Cut(string(up), " ")
	uptime, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return 0, false
	}
	d := time.Duration(uptime*float64(time.Second)) - time.Duration(ticks)*time.Second/clockTicks
	return max(d, 0), true
}
