// Package background is the reference background-shell registry
// (spec/background.md): commands launched with `background: true` run
// detached under a random handle, their output accumulates as a foreground
// command's does, and retrieve and kill calls read and end them. The
// registry lives as long as the session; closing it kills every command
// still running, so none outlives the session that launched it.
//
// Spawning is ref/shellexec's (the same shell, session, stdin and pipes as
// a foreground command); output is ref/output's. This package adds only the
// handles, the lifetime and the texts.
package background
