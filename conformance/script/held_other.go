//go:build !linux

package script

// sampleHeld reports that no scheduler accounting is read here: only Linux
// has /proc/PID/task/TID/schedstat.
func sampleHeld(pid int) held { return held{} }
