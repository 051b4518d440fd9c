package script

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// RequireProgramsVariable, when set, turns a [has:PROG] condition on a
// missing program into an error instead of false, so CI cannot silently
// skip what it could have installed.
const RequireProgramsVariable = "APEXCHECK_REQUIRE_PROGRAMS"

// condition evaluates the scenario conditions apexcheck adds to
// testscript's own:
//
//	[cap:NAME]   the implementation declared capability NAME
//	[has:PROG]   PROG is on the runner's PATH (an error when missing and
//	             APEXCHECK_REQUIRE_PROGRAMS is set)
//	[root]       the runner runs as root
//	[userns]     the runner can start the implementation with /bin changed
//	             (impl start -bin): a private mount namespace with an
//	             overlay, as root or in a user namespace (an error when
//	             unavailable and APEXCHECK_REQUIRE_PROGRAMS is set)
//	[ptrace]     a fake shell's -trace works here: a child may trace its
//	             parent (an error when unavailable and
//	             APEXCHECK_REQUIRE_PROGRAMS is set)
func (cfg *Config) condition(cond string) (bool, error) {
	name, arg, _ := strings.Cut(cond, ":")
	switch name {
	case "cap":
		return cfg.Capabilities[arg], nil
	case "has":
		_, err := exec.LookPath(arg)
		if err != nil && os.Getenv(RequireProgramsVariable) != "" {
			// In CI every program a scenario needs is installed; a missing
			// one is a setup error, not a reason to skip.
			return false, fmt.Errorf("%s is not installed and %s is set", arg, RequireProgramsVariable)
		}
		return err == nil, nil
	case "root":
		return os.Geteuid() == 0, nil
	case "userns":
		return cfg.userns()
	case "ptrace":
		return cfg.ptrace()
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// extraCommands are commands registered by other parts of the kit (the
// fake shells); empty unless SelfExe is set.
func (cfg *Config) extraCommands() map[string]func(*testscript.TestScript, bool, []string) {
	cmds := map[string]func(*testscript.TestScript, bool, []string){}
	if cfg.SelfExe != "" {
		cmds["fakeshell"] = cfg.cmdFakeshell // pathprobe.go
	}
	return cmds
}
