package background

import (
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The model-visible texts of spec/background.md. Each starts with the
// prefix and the handle.
const prefix = "[background] "

// runningHeader is the first line of a retrieval while the command runs
// (BG-9).
func runningHeader(handle string, elapsed time.Duration) string {
	return prefix + handle + ": running " + FormatSeconds(elapsed) + "s"
}

// endedHeader is the first line of a retrieval once the command has ended
// (BG-9, BG-15, BG-18).
func endedHeader(handle string, killed bool, code int, elapsed time.Duration) string {
	state := "exited"
	if killed {
		state = "killed"
	}
	return prefix + handle + ": " + state + " (code " + strconv.Itoa(code) + ") after " + FormatSeconds(elapsed) + "s"
}

// retrievalText is the whole text of a retrieval (BG-9, BG-13): the
// header, a blank line, the output or "(no output)", and when the output
// was cut, a blank line and the by-lines footer, whatever cut it.
func retrievalText(header string, s output.Snapshot) string {
	content := s.Content
	if content == "" {
		content = tool.NoOutput
	}
	text := header + "\n\n" + content
	if footer := s.LinesFooter(); footer != "" {
		text += "\n\n" + footer
	}
	return text
}

// killSent is the text of a kill that found its command running (BG-16).
func killSent(handle string) string { return prefix + handle + ": kill signal sent" }

// alreadyExited is the text of a kill that found its command ended (BG-17).
func alreadyExited(handle string, code int) string {
	return prefix + handle + ": already exited (code " + strconv.Itoa(code) + ")"
}

// unknownHandle is the error text of a handle the session never launched
// (BG-19): the handles it did launch, in launch order, or a sentence saying
// there are none.
func (r *Registry) unknownHandle(handle string) string {
	known := r.Handles()
	if len(known) == 0 {
		return "Unknown background handle: " + handle + ". No background commands have been launched."
	}
	return "Unknown background handle: " + handle + ". Known handles: " + strings.Join(known, ", ")
}

// FormatSeconds formats a duration as whole milliseconds in seconds with
// one decimal, as JavaScript's (ms / 1000).toFixed(1) does (BG-10): the
// nearest tenth to the exact value of the double ms/1000, an exact tie
// going up. Go's strconv rounds exact ties to even, which differs at
// 0.25 s, 0.75 s, 1.25 s and so on.
func FormatSeconds(d time.Duration) string {
	ms := d.Milliseconds()
	if ms < 0 {
		ms = 0
	}
	seconds := new(big.Rat).SetFloat64(float64(ms) / 1000) // exact value of the double
	tenths := seconds.Mul(seconds, big.NewRat(10, 1))
	n := new(big.Int).Quo(tenths.Num(), tenths.Denom()) // floor: the value is not negative
	rem := new(big.Rat).Sub(tenths, new(big.Rat).SetInt(n))
	if rem.Cmp(big.NewRat(1, 2)) >= 0 {
		n.Add(n, big.NewInt(1))
	}
	whole, frac := new(big.Int).QuoRem(n, big.NewInt(10), new(big.Int))
	return whole.String() + "." + frac.String()
}
