// Package linediff shows how two texts differ, line by line, for the
// failures of scenario assertions.
package linediff
