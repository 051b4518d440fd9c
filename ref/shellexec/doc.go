// Package shellexec runs one foreground bash command the way the bash tool
// does (spec/exec.md): `bash -lc <command>` in a session of its own, stdin
// from /dev/null, stdout and stderr fed into one writer in arrival order, an
// optional timeout and abort that kill the whole process group, and a wait
// that never hangs on pipes held open by detached grandchildren.
package shellexec
