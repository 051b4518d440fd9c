package broken

import (
	"bytes"
	"io"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/ref/loginpath"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// The login PATH probe's variants (spec/path-probe.md): the reference with
// one aspect of its probe changed through loginpath.Options, or its cache
// removed.
func init() {
	Register("path-no-setsid", Variant{
		Clause: "PATH-5",
		Defect: "starts the login shell in the implementation's own session and process group, so an interactive rc takes its terminal, reads what is typed, or stops the implementation",
		// The shell is no session leader; under a terminal it takes the
		// foreground (fg) or stops the implementation with SIGTTIN (bg).
		Scenarios: `^path_(session|tty_foreground|tty_background)$`,
		Serve:     withProbe(loginpath.Options{Attr: &syscall.SysProcAttr{}}),
	})
	Register("path-setpgid-only", Variant{
		Clause:    "PATH-4",
		Defect:    "starts the login shell in a process group of its own but in the implementation's session, where an interactive bash stops itself and times out",
		Scenarios: `^path_(session|tty_real_bash)$`,
		Serve:     withProbe(loginpath.Options{Attr: &syscall.SysProcAttr{Setpgid: true}}),
	})
	Register("path-no-bound", Variant{
		Clause:    "PATH-6",
		Defect:    "waits for the login shell without a bound",
		Scenarios: `^path_(slow_beyond_bound|sigterm_immune)$`,
		Serve:     withProbe(loginpath.Options{Bound: 24 * time.Hour}),
	})
	Register("path-waits-for-eof", Variant{
		Clause:    "PATH-7",
		Defect:    "reads the login shell's stdout to end-of-file, so a child holding it open stalls the probe to its bound",
		Scenarios: `^path_held_stdout$`,
		Serve:     withProbe(loginpath.Options{Grace: 24 * time.Hour}),
	})
	Register("path-first-line", Variant{
		Clause:    "PATH-9",
		Defect:    "keeps the first line of the login shell's stdout instead of the last",
		Scenarios: `^path_(banner|real_bash)$`,
		Serve: withProbe(loginpath.Options{Select: func(stdout []byte) []byte {
			line, _, _ := bytes.Cut(stdout, []byte("\n"))
			return line
		}}),
	})
	Register("path-stdout-capped", Variant{
		Clause: "PATH-28",
		Defect: "decides from the first MiB of the login shell's stdout only, so a PATH after a 64 MiB banner is lost: memory bounded by a cap on the output instead of by keeping only the last line",
		// Caught by the bounded check of the PATH: the shell finishes its
		// 64 MiB within the bound, so the host PATH is the variant's fault.
		Scenarios: `^path_stdout_memory$`,
		Serve: withProbe(loginpath.Options{Select: func(head []byte) []byte {
			if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
				return head[i+1:]
			}
			return head
		}}),
	})
	Register("path-bound-3s", Variant{
		Clause:    "PATH-6",
		Defect:    "bounds the probe at 3 s instead of 5 s, so a slow but healthy rc loses its PATH",
		Scenarios: `^path_bound_just_within$`,
		Serve:     withProbe(loginpath.Options{Bound: 3 * time.Second}),
	})
	Register("path-bound-1s", Variant{
		Clause:    "PATH-6",
		Defect:    "bounds the probe at 1 s instead of 5 s, so an rc that takes 2 s loses its PATH",
		Scenarios: `^path_slow_within_bound$`,
		Serve:     withProbe(loginpath.Options{Bound: time.Second}),
	})
	Register("path-bound-10s", Variant{
		Clause:    "PATH-6",
		Defect:    "bounds the probe at 10 s instead of 5 s, so a wedged rc stalls the first call twice as long",
		Scenarios: `^path_bound_just_beyond$`,
		Serve:     withProbe(loginpath.Options{Bound: 10 * time.Second}),
	})
	Register("path-grace-2s", Variant{
		Clause:    "PATH-7",
		Defect:    "reads the login shell's stdout for 2 s after it exits, over the 1 s the grace may last",
		Scenarios: `^path_grace$`,
		Serve:     withProbe(loginpath.Options{Grace: 2 * time.Second}),
	})
	Register("path-stderr-merged", Variant{
		Clause:    "PATH-4",
		Defect:    "sends the login shell's stderr into the same pipe as its stdout, so job-control noise and logout messages become part of the PATH",
		Scenarios: `^path_stderr_discarded$`,
		Serve:     withProbe(loginpath.Options{MergeStderr: true}),
	})
	Register("path-del-accepted", Variant{
		Clause:    "PATH-12",
		Defect:    "rejects only the bytes below 0x20, accepting DEL and the C1 controls in the PATH",
		Scenarios: `^path_control_characters$`,
		Serve:     withProbe(loginpath.Options{Check: blind(0x7f, 0xc2)}),
	})
	Register("path-c1-accepted", Variant{
		Clause:    "PATH-27",
		Defect:    "rejects the C0 controls and DEL but accepts the C1 controls (U+0080 to U+009F) in the PATH",
		Scenarios: `^path_control_characters$`,
		Serve:     withProbe(loginpath.Options{Check: blind(0xc2)}),
	})
	Register("path-group-kill-only", Variant{
		Clause:    "PATH-25",
		Defect:    "kills only the login shell's process group when the probe ends, so a background job of an rc with job control outlives it",
		Scenarios: `^path_job_control(_real_bash)?$`,
		Serve: withProbe(loginpath.Options{Reap: func(pid int) {
			syscall.Kill(-pid, syscall.SIGKILL)
		}}),
	})
	Register("path-no-parent-death", Variant{
		Clause:    "PATH-26",
		Defect:    "starts the login shell without a parent-death signal, so killing the implementation mid-probe leaves the shell running",
		Scenarios: `^path_implementation_killed$`,
		Serve:     withProbe(loginpath.Options{Attr: &syscall.SysProcAttr{Setsid: true}}),
	})
	Register("path-per-call", Variant{
		Clause:    "PATH-18",
		Defect:    "probes the login shell on every call instead of once per process",
		Scenarios: `^path_(once|concurrent_first_calls|slow_beyond_bound)$`,
		Serve: func(in io.Reader, out io.Writer) error {
			return server.ReferenceWith(func(cfg *tool.Config) {
				cfg.LoginPATH = func() (string, bool) {
					r := loginpath.Probe(loginpath.Options{})
					return r.PATH, r.OK
				}
			}).Serve(in, out)
		},
	})
}

// withProbe serves the reference with its probe made with o, cached once
// per process as the reference's is.
func withProbe(o loginpath.Options) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		c := &loginpath.Cached{Options: o}
		return server.ReferenceWith(func(cfg *tool.Config) { cfg.LoginPATH = c.LoginPATH }).Serve(in, out)
	}
}

// blind returns the reference's candidate check made blind to the given
// bytes: each is read as a harmless 'x' first. Blind to 0xC2, it misses
// the C1 controls, whose UTF-8 starts with that byte.
func blind(hidden ...byte) func([]byte) error {
	return func(candidate []byte) error {
		seen := bytes.Clone(candidate)
		for i, b := range seen {
			if bytes.IndexByte(hidden, b) >= 0 {
				seen[i] = 'x'
			}
		}
		return loginpath.Check(seen)
	}
}
