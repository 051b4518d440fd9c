package script

import (
	"os"
	"path/filepath"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/rogpeppe/go-internal/testscript"
)

// Config is what the scenario commands need of a run: the implementation
// to start, how long to wait for it, the kit's own executable, what the
// implementation declared, and the tracker its processes are registered
// with.
type Config struct {
	// Impl is the implementation's command line.
	Impl []string
	// Bound bounds every wait for the implementation; zero is
	// [client.DefaultBound].
	Bound time.Duration
	// SelfExe is an executable that plays the kit's helpers by the value of
	// APEXCHECK_ROLE (internal/roles): fake login shells (fakeshell), a
	// program run with /bin or TMPDIR changed (binoverlay) and the session
	// leader of a terminal scenario (ptyjob). Empty disables the fakeshell
	// command, impl start -pty, -bin and -tmpfs, and makes [userns] false.
	SelfExe string
	// Capabilities are what the implementation declared, for [cap:NAME].
	Capabilities map[string]bool
	// Tracker, when set, tracks every implementation and marker the
	// scenarios start, so that [client.Tracker.Interrupt] can end them.
	Tracker *client.Tracker
	// Transcripts, when set, records each scenario's protocol messages in
	// a transcript (client.Transcript) beside its work directory: WORK
	// plus TranscriptSuffix.
	Transcripts bool
}

// TranscriptSuffix ends the name of a scenario's transcript, which is
// its work directory's path plus this suffix: outside the directory, so
// that the scenario's own listings of it do not see it.
const TranscriptSuffix = ".transcript.jsonl"

func (c *Config) bound() time.Duration {
	if c.Bound > 0 {
		return c.Bound
	}
	return client.DefaultBound
}

// Params are testscript's parameters for running files (scenarios
// extracted to disk) with the kit's commands and conditions, each with
// its own per-scenario state, under workRoot ("" for testscript's
// default).
func (cfg *Config) Params(files []string, workRoot string) testscript.Params {
	return testscript.Params{
		Files:       files,
		WorkdirRoot: workRoot,
		Cmds:        mergeCmds(Commands(), cfg.extraCommands()),
		Condition:   cfg.condition,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			if err := os.MkdirAll(home, 0o755); err != nil {
				return err
			}
			env.Setenv("HOME", home)
			st := newState(cfg)
			env.Values[stateKey{}] = st
			env.Defer(st.stop)
			return nil
		},
	}
}

func mergeCmds(maps ...map[string]func(*testscript.TestScript, bool, []string)) map[string]func(*testscript.TestScript, bool, []string) {
	out := map[string]func(*testscript.TestScript, bool, []string){}
	for _, m := range maps {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// initialEnvNames are the variables testscript sets up that the
// implementation inherits (with HOME replaced by Setup).
var initialEnvNames = []string{"WORK", "PATH", "HOME", "TMPDIR"}
