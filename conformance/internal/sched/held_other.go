//go:build !linux

package sched

// Sample reports that no scheduler accounting is read here: only Linux has
// /proc/PID/task/TID/schedstat.
func Sample(pid int) Held { return Held{} }

// Where reports nothing here: only Linux shows a process's state in /proc.
func Where(pid int) string { return "" }

// WhereGroup reports nothing here: only Linux shows a process's state in
// /proc.
func WhereGroup(pgid, max int) string { return "" }
