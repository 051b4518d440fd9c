package fakeshell

import (
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"
)

// init keeps a leaderless child's main goroutine on the main thread,
// which holdLeaderless ends alone. Once init is over the runtime may move
// the goroutine to another thread, as it does one it preempts because the
// machine stalled it past 10 ms; the child then only sleeps, the fake
// shell waits its 5 s for a zombie leader that never comes, and the probe's
// bound passes (1 child in 200 beside busy loops, TestLeaderlessUnderLoad).
// Every init runs on the main thread, and a lock taken in one holds into
// main (runtime.LockOSThread).
func init() {
	if os.Getenv(holdVariable) != "" && os.Getenv(leaderlessVariable) != "" {
		runtime.LockOSThread()
	}
}

// holdLeaderless runs on for d after ending the process's main thread
// alone (exit(2), not exit_group(2)), as pthread_exit in a program's main
// thread does: the thread group leader is then a zombie while the
// process's other threads run. init locked the main goroutine to the main
// thread; should it be elsewhere all the same, the process only sleeps, and
// the parent's waitLeaderless says so.
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
