//go:build !linux

package fakeshell

// useTTY is Linux-only: elsewhere the fake shell records that it did not
// try.
func useTTY(r *Record, grab, read bool) { r.Error = "terminal behaviours are Linux-only" }
