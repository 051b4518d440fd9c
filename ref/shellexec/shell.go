package shellexec

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// LoginFlag is the flag string the shell is started with (EXEC-1, seed D084).
const LoginFlag = "-lc"

// Shell is a resolved shell: the executable to start and the arguments that
// precede the command.
type Shell struct {
	Path string
	Args []string
}

// Argv returns the shell's arguments followed by command, as recorded in the
// execution facts (EXEC-21).
func (s Shell) Argv(command string) []string {
	argv := make([]string, 0, len(s.Args)+1)
	argv = append(argv, s.Args...)
	return append(argv, command)
}

// ErrShellNotFound is wrapped by the error ResolveShell returns when an
// explicit shellPath does not exist.
var ErrShellNotFound = errors.New("custom shell path not found")

// ShellPathError is the error for an explicit shellPath that does not
// exist (EXEC-3). Its message is the model-visible text.
type ShellPathError struct{ Path string }

func (e *ShellPathError) Error() string {
	return "Custom shell path not found: " + e.Path + "\nPlease update shellPath in your settings."
}

func (e *ShellPathError) Unwrap() error { return ErrShellNotFound }

// ResolveShell picks the bash binary (EXEC-2, EXEC-3): shellPath when it is
// set (an error when it does not exist), else /bin/bash, else bash on the
// host PATH, else sh. The host PATH is hostPATH, not the probed login PATH:
// ADR 0045 D4 leaves the resolved binary unchanged.
func ResolveShell(shellPath, hostPATH string) (Shell, error) {
	if shellPath != "" {
		if _, err := os.Stat(shellPath); err != nil {
			return Shell{}, &ShellPathError{Path: shellPath}
		}
		return Shell{Path: shellPath, Args: []string{LoginFlag}}, nil
	}
	if _, err := os.Stat("/bin/bash"); err == nil {
		return Shell{Path: "/bin/bash", Args: []string{LoginFlag}}, nil
	}
	if p, err := lookPathIn("bash", hostPATH); err == nil {
		return Shell{Path: p, Args: []string{LoginFlag}}, nil
	}
	return Shell{Path: "sh", Args: []string{LoginFlag}}, nil
}

// lookPathIn is exec.LookPath against an explicit PATH value.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range splitPath(path) {
		candidate := dir + "/" + name
		if fi, err := os.Stat(candidate); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return candidate, nil
		}
	}
	return "", fmt.Errorf("look up %s: %w", name, exec.ErrNotFound)
}

func splitPath(path string) []string {
	var dirs []string
	start := 0
	for i := 0; i <= len(path); i++ {
		if i == len(path) || path[i] == ':' {
			if dir := path[start:i]; dir != "" {
				dirs = append(dirs, dir)
			}
			start = i + 1
		}
	}
	return dirs
}
