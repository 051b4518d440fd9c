package mutate

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// A mutant is code that signals processes: a mutant of the reference's
// session sweep (ref/loginpath's KillSession) with its session test
// negated sends SIGKILL to every process outside the probe's session, which
// for a run as root is every process of the machine (the mutation run, the
// shell that started it, a CI runner's agent). So each mutant's scenario run
// is started in a PID namespace of its own, with its own /proc: its kill(2)
// calls can only reach the processes of that namespace, /proc lists only
// them (the scenarios and the reference read /proc for markers, sessions
// and memory, and need the numbers they see to be their own), and when the
// run's first process exits or is killed, the kernel kills every process
// left in the namespace, so nothing a run starts can outlive it.

// sandboxes are the unshare(1) command prefixes tried in order: the plain
// one needs root (CAP_SYS_ADMIN), the second an unprivileged user namespace.
// --kill-child ends the namespace when unshare itself is killed.
var sandboxes = [][]string{
	{"unshare", "--pid", "--fork", "--mount-proc", "--kill-child"},
	{"unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child"},
}

// ErrNoSandbox is returned by FindSandbox when no PID namespace can be made.
var ErrNoSandbox = errors.New("no PID namespace for the mutants' scenario runs")

// FindSandbox returns the first prefix of sandboxes that runs a command in a
// new PID namespace here, checked by running one: within it, the command is
// process 1.
func FindSandbox() ([]string, error) {
	var tried []string
	for _, prefix := range sandboxes {
		args := append(append([]string{}, prefix[1:]...), "sh", "-c", "echo $$")
		out, err := exec.Command(prefix[0], args...).CombinedOutput()
		if err == nil && strings.TrimSpace(string(out)) == "1" {
			return prefix, nil
		}
		tried = append(tried, fmt.Sprintf("%s: %v %s", strings.Join(prefix, " "), err, strings.TrimSpace(string(out))))
	}
	return nil, fmt.Errorf("%w (util-linux unshare as root, or with user namespaces, is needed): %s", ErrNoSandbox, strings.Join(tried, "; "))
}
