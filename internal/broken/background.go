package broken

import (
	"io"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/background"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/shellexec"
	"github.com/apexcheck/apexcheck/ref/tool"
)

func init() {
	Register("bg-kill-shell-only", Variant{
		Clause: "BG-16",
		Defect: "kills a background command's shell but not its process group, on kill and at disposal",
		// Children and grandchildren of the shell survive.
		Scenarios: `^bg_(kill_tree|shutdown_disposes|stdin_close_disposes)$`,
		Serve: withBackground(func(tool.Background) tool.Background {
			return background.New(background.Options{Kill: func(p *shellexec.Process) {
				syscall.Kill(p.Pid(), syscall.SIGKILL)
			}})
		}),
	})
	Register("bg-kill-fixed-wait", Variant{
		Clause: "BG-28",
		Defect: "answers a kill call only after a fixed 5 s wait, however soon the command ended (BG-28)",
		// The kill is right and so is every later retrieval; only the
		// answer comes seconds after the entry has ended.
		Scenarios: `^bg_kill_answers_promptly$`,
		Serve: withBackground(func(tool.Background) tool.Background {
			return background.New(background.Options{Kill: func(p *shellexec.Process) {
				p.KillGroup()
				time.Sleep(background.KillWait)
			}})
		}),
	})
	Register("bg-destructive-retrieval", Variant{
		Clause: "BG-11",
		Defect: "a retrieval consumes the output it shows, so the next shows only what arrived since",
		// The second retrieval of the same output shows "(no output)".
		Scenarios: `^bg_(output_grows|unknown_handle_some)$`,
		Serve: withBackground(func(b tool.Background) tool.Background {
			return &destructive{Background: b, shown: map[string]string{}}
		}),
	})
	Register("bg-no-disposal", Variant{
		Clause: "BG-25",
		Defect: "leaves background commands running when the session ends",
		// Shutdown and stdin close leave the commands alive.
		Scenarios: `^bg_(shutdown_disposes|stdin_close_disposes)$`,
		Serve: withBackground(func(b tool.Background) tool.Background {
			return noDisposal{b}
		}),
	})
	Register("bg-sequential-handles", Variant{
		Clause: "BG-2",
		Defect: "names background commands bg-1, bg-2, … instead of random UUIDs",
		// Guessable handles let a model address commands it was never told about.
		Scenarios: `^bg_launch_text$`,
		Serve: withBackground(func(b tool.Background) tool.Background {
			return &sequential{Background: b, real: map[string]string{}}
		}),
	})
}

// withBackground serves the reference with its background registry
// replaced by what swap makes of it.
func withBackground(swap func(tool.Background) tool.Background) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		return server.ReferenceWith(func(c *tool.Config) {
			c.Background = swap(c.Background)
		}).Serve(in, out)
	}
}

// destructive strips from each retrieval the output an earlier retrieval
// of the same handle already showed.
type destructive struct {
	tool.Background
	mu    sync.Mutex
	shown map[string]string // handle → output last shown
}

func (d *destructive) Handle(op call.Operation) protocol.Result {
	res := d.Background.Handle(op)
	if op.Kind != call.Retrieve || res.IsError {
		return res
	}
	header, body, _ := strings.Cut(res.Text, "\n\n")
	d.mu.Lock()
	prev := d.shown[op.Handle]
	d.shown[op.Handle] = body
	d.mu.Unlock()
	if rest, ok := strings.CutPrefix(body, prev); ok {
		body = rest
	}
	if body == "" {
		body = tool.NoOutput
	}
	res.Text = header + "\n\n" + body
	return res
}

// noDisposal never kills anything when the session ends.
type noDisposal struct{ tool.Background }

func (noDisposal) Close() {}

// sequential hands out bg-1, bg-2, … in place of the registry's handles.
type sequential struct {
	tool.Background
	mu   sync.Mutex
	real map[string]string // fake → real
	next int
}

func (s *sequential) Launch(spec tool.Spawn) (string, error) {
	h, err := s.Background.Launch(spec)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	fake := "bg-" + strconv.Itoa(s.next)
	s.real[fake] = h
	return fake, nil
}

func (s *sequential) Handle(op call.Operation) protocol.Result {
	s.mu.Lock()
	if h, ok := s.real[op.Handle]; ok {
		op.Handle = h
	}
	res := s.Background.Handle(op)
	for fake, h := range s.real {
		res.Text = strings.ReplaceAll(res.Text, h, fake)
	}
	s.mu.Unlock()
	return res
}

func (s *sequential) CommandFor(handle string) (string, bool) {
	s.mu.Lock()
	if h, ok := s.real[handle]; ok {
		handle = h
	}
	s.mu.Unlock()
	return s.Background.CommandFor(handle)
}
