package shellexec

import (
	"errors"
	"math"
	"time"
)

// MaxTimeoutMillis is the largest timeout the tool accepts, in milliseconds:
// the largest delay a JavaScript timer can hold (EXEC-9, seed MAX_TIMEOUT_MS).
const MaxTimeoutMillis = 2_147_483_647

// The model-visible texts of an invalid timeout (EXEC-8, EXEC-9).
var (
	ErrTimeoutNotPositive = errors.New("Invalid timeout: must be a finite number of seconds")
	ErrTimeoutTooLarge    = errors.New("Invalid timeout: maximum is 2147483.647 seconds")
)

// ResolveTimeout validates a timeout in seconds and converts it to a
// duration. A nil timeout means no timeout (EXEC-7). The arithmetic is the
// seed's, in IEEE doubles, so the boundary falls where it falls in
// JavaScript.
func ResolveTimeout(seconds *float64) (time.Duration, error) {
	if seconds == nil {
		return 0, nil
	}
	s := *seconds
	if math.IsInf(s, 0) || math.IsNaN(s) || s <= 0 {
		return 0, ErrTimeoutNotPositive
	}
	ms := s * 1000
	if ms > MaxTimeoutMillis {
		return 0, ErrTimeoutTooLarge
	}
	// A JavaScript timer fires no sooner than 1 ms.
	d := time.Duration(ms * float64(time.Millisecond))
	if d < time.Millisecond {
		d = time.Millisecond
	}
	return d, nil
}
