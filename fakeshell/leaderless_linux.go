package fakeshell

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// holdLeaderless runs on for d after ending the process's main thread
// alone (exit(2), not exit_group(2)), as pthread_exit in a program's main
// thread does: the thread group leader is then a zombie while the
// process's other threads run. The main goroutine starts on the main
// thread and is locked to it here; if it has moved already, the process
// only sleeps, and the parent's waitLeaderless says so.
func holdLeaderless(d time.Duration) int {
	runtime.LockOSThread()
	if syscall.Gettid() != syscall.Getpid() {
		time.Sleep(d)
		return 0
	}
	go func() {
		time.Sleep(d)
		os.Exit(0)
	}()
	syscall.Syscall(syscall.SYS_EXIT, 0, 0, 0)
	return 0 // not reached: the thread has ended
}

// waitLeaderless waits, at most max, for process pid to be leaderless: its
// /proc/PID/stat shows a zombie and /proc/PID/task still lists another
// thread.
func waitLeaderless(pid int, max time.Duration) bool {
	dir := "/proc/" + strconv.Itoa(pid)
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(dir + "/stat")
		if err != nil {
			return false
		}
		if state(data) == "Z" {
			tasks, _ := os.ReadDir(dir + "/task")
			return len(tasks) > 1
		}
		time.Sleep(5 * time.Millisecond)
	}
	return false
}
