//go:build unix

package permission

import (
	"syscall"
	"time"
)

// cpuTime is the process's CPU time so far, user and system. The decision
// benchmarks time with it rather than the wall clock: on a machine shared
// with other work the wall clock measures the other work too, and the
// ratios they report would follow the load.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
