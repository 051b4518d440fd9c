//go:build !linux

package fakeshell

import "time"

// holdLeaderless only sleeps where no leaderless process can be made
// portably; waitLeaderless then says the child is not leaderless.
func holdLeaderless(d time.Duration) int {
	time.Sleep(d)
	return 0
}

func waitLeaderless(pid int, max time.Duration) bool { return false }
