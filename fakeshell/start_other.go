//go:build !linux

package fakeshell

import "time"

// sinceStart is 0 where there is no /proc: a wait counts from now.
func sinceStart() time.Duration { return 0 }

// sinceStartKnown is sinceStart, which is never known here.
func sinceStartKnown() (time.Duration, bool) { return 0, false }
