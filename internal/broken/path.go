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
		Defect: "starts the login shell in the implementation's own session and process group, so an interactive rc takes its terminal, reads what is typed, or stops the implementation",
		// The shell is no session leader; under a terminal it takes the
		// foreground (fg) or stops the implementation with SIGTTIN (bg).
		Scenarios: `^path_(session|tty_foreground|tty_background)$`,
		Serve:     withProbe(loginpath.Options{Attr: &syscall.SysProcAttr{}}),
	})
	Register("path-setpgid-only", Variant{
		Defect:    "starts the login shell in a process group of its own but in the implementation's session, where an interactive bash stops itself and times out",
		Scenarios: `^path_(session|tty_real_bash)$`,
		Serve:     withProbe(loginpath.Options{Attr: &syscall.SysProcAttr{Setpgid: true}}),
	})
	Register("path-no-bound", Variant{
		Defect:    "waits for the login shell without a bound",
		Scenarios: `^path_(slow_beyond_bound|sigterm_immune)$`,
		Serve:     withProbe(loginpath.Options{Bound: 24 * time.Hour}),
	})
	Register("path-waits-for-eof", Variant{
		Defect:    "reads the login shell's stdout to end-of-file, so a child holding it open stalls the probe to its bound",
		Scenarios: `^path_held_stdout$`,
		Serve:     withProbe(loginpath.Options{Grace: 24 * time.Hour}),
	})
	Register("path-first-line", Variant{
		Defect:    "keeps the first line of the login shell's stdout instead of the last",
		Scenarios: `^path_(banner|real_bash)$`,
		Serve: withProbe(loginpath.Options{Select: func(stdout []byte) []byte {
			line, _, _ := bytes.Cut(stdout, []byte("\n"))
			return line
		}}),
	})
	Register("path-per-call", Variant{
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
