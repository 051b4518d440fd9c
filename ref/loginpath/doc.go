// Package loginpath is the login-shell PATH probe of ADR 0045
// (spec/path-probe.md): once per process, at the first call that spawns a
// shell, the user's login shell runs `-lic 'printf %s "$PATH"'` in a new
// session, bounded at 5 seconds, and the last line of its stdout becomes
// the PATH of every shell the tool starts. Every failure, a timeout
// included, leaves the host PATH in place, and is cached like a success.
//
// The package has three layers: Select and Check turn the shell's stdout
// into a PATH (pure functions), ChooseShell picks the shell from $SHELL or
// the fallback chain, and Probe runs the exchange. Cached and LoginPATH
// add the once-per-process, single-flight cache the tool is wired to.
package loginpath
