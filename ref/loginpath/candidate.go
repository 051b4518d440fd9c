package loginpath

import (
	"bytes"
	"errors"
	"fmt"
	"time"
)

// The probe's command line after the shell's path (PATH-1): -l sources the
// login files, -i the interactive rc, and the command prints the PATH
// without a line feed of its own.
const (
	Flags   = "-lic"
	Command = `printf %s "$PATH"`
)

// Bound is how long the whole exchange may take, from the start of the
// shell to the decision (PATH-6, ADR 0045 decision 1).
const Bound = 5 * time.Second

// Grace is how long stdout is still read after the shell exits, for output
// in flight; a descendant holding stdout open cannot stretch the exchange
// past it (PATH-7). It is the foreground grace of EXEC-19.
const Grace = 100 * time.Millisecond

// MaxLen is the longest PATH the probe accepts, in bytes (PATH-13). Linux
// refuses to exec with any one environment string longer than
// MAX_ARG_STRLEN (131072 bytes, "PATH=" and the NUL included) and makes
// argv and envp share ARG_MAX, so a PATH near that size makes every later
// spawn fail with E2BIG. A quarter of the per-string limit leaves room for
// the command and the rest of the environment and is still far above any
// real PATH (a few KiB even with Nix or Homebrew).
const MaxLen = 32768

// FallbackShells are tried in order when $SHELL is unset or empty (PATH-2).
var FallbackShells = []string{"/bin/zsh", "/bin/bash", "/bin/sh"}

// The reasons a probe fails. Each failure leaves the host PATH in place
// (PATH-15); Result.Err wraps one of them with the detail.
var (
	ErrNoShell       = errors.New("no login shell: $SHELL is unset or empty and no fallback shell is usable")
	ErrUnusableShell = errors.New("$SHELL is not a usable shell")
	ErrStart         = errors.New("login shell did not start")
	ErrTimeout       = errors.New("login shell did not finish within the bound")
	ErrExit          = errors.New("login shell did not exit with status 0")
	ErrEmpty         = errors.New("login shell printed no PATH")
	ErrControl       = errors.New("PATH holds a control character")
	ErrTooLong       = errors.New("PATH is too long")
	ErrUnsupported   = errors.New("no login PATH probe on this platform")
)

// Select returns the candidate PATH in a shell's stdout: the text after its
// last line feed, or all of it when it holds none (PATH-9). It is not
// trimmed: a trailer printed after the PATH without a line feed stays part
// of it, and one that ends in a line feed leaves an empty candidate.
func Select(stdout []byte) []byte {
	return stdout[bytes.LastIndexByte(stdout, '\n')+1:]
}

// Check reports why a candidate cannot be used as the PATH, or nil when it
// can (PATH-11, PATH-12, PATH-13, PATH-27).
func Check(candidate []byte) error {
	if len(candidate) == 0 {
		return ErrEmpty
	}
	if len(candidate) > MaxLen {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrTooLong, len(candidate), MaxLen)
	}
	for i, b := range candidate {
		if b < 0x20 || b == 0x7f {
			return fmt.Errorf("%w: byte %#02x at offset %d", ErrControl, b, i)
		}
		// PATH-27: a C1 control (U+0080 to U+009F) in UTF-8 is the lead
		// byte 0xC2 and a byte from 0x80 to 0x9F. The bytes 0x80 to 0x9F
		// alone are not checked: they are the continuation bytes of most
		// non-ASCII letters, "À" (C3 80) among them.
		if b == 0xc2 && i+1 < len(candidate) && candidate[i+1] >= 0x80 && candidate[i+1] <= 0x9f {
			return fmt.Errorf("%w: U+%04X at offset %d", ErrControl, rune(candidate[i+1]), i)
		}
	}
	return nil
}
