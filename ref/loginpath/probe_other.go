//go:build !unix

package loginpath

// ChooseShell has nothing to choose on this platform: ADR 0045 decision 3
// leaves Windows with `bash -c` and the host environment (PATH-24).
func ChooseShell(env []string, fallback []string) (string, error) { return "", ErrUnsupported }

// Probe always fails on this platform (PATH-24): the host PATH stays.
func Probe(o Options) Result { return Result{Err: ErrUnsupported} }
