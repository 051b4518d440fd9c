package broken

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

func init() {
	Register("handle-first", Variant{
		Defect: "dispatches on a present `handle` before looking at `command`, as apex-code 0.2.0 did",
		Clause: "CALL-1",
		// The mixed call runs the handle path instead of being rejected.
		Scenarios: `^call_ambiguous$`,
		Serve: rewritingArgs(func(m map[string]any) {
			if _, ok := m["handle"]; ok {
				delete(m, "command")
			}
		}),
	})
	Register("ignores-timeout", Variant{
		Clause:    "EXEC-10",
		Defect:    "drops the timeout, so a command runs to completion",
		Scenarios: `^exec_(timeout_kills_tree|timeout_text|invalid_timeout|core_timeout)$`,
		Serve:     rewritingArgs(func(m map[string]any) { delete(m, "timeout") }),
	})
	Register("hangs", Variant{
		Clause:    "PROTO-6",
		Defect:    "never answers a call that runs a command",
		Scenarios: `^exec_(exit_code|no_output)$`,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				if strings.Contains(string(c.Args), `"command"`) {
					select {} // hang: the runner must kill it and report errored
				}
				return h.Execute(ctx, c)
			}}
		}),
	})
	Register("crashes", Variant{
		Clause:    "PROTO-6",
		Defect:    "exits in the middle of a call",
		Scenarios: `^exec_(exit_code|no_output)$`,
		Serve: Wrapped(func(h server.Handler) server.Handler {
			return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
				os.Stderr.WriteString("panic: simulated crash in the middle of a call\n")
				os.Exit(3)
				return protocol.Result{}
			}}
		}),
	})
	Register("garbage-stdout", Variant{
		Clause:    "PROTO-2",
		Defect:    "prints log lines to stdout between protocol messages",
		Scenarios: `^exec_(exit_code|no_output)$`,
		Serve: func(in io.Reader, out io.Writer) error {
			w := bufio.NewWriter(out)
			pr, pw := io.Pipe()
			go func() {
				// Interleave a log line after the handshake.
				sc := bufio.NewScanner(pr)
				sc.Buffer(make([]byte, 64<<10), protocol.MaxLine)
				first := true
				for sc.Scan() {
					w.Write(append(sc.Bytes(), '\n'))
					if first {
						w.WriteString("DEBUG tool ready\n")
						first = false
					}
					w.Flush()
				}
			}()
			return server.Reference().Serve(in, pw)
		},
	})
	Register("slow-hello", Variant{
		Clause:    "PROTO-3",
		Defect:    "takes longer than the bound to answer the handshake",
		Scenarios: `^exec_no_output$`,
		Serve: func(in io.Reader, out io.Writer) error {
			time.Sleep(time.Hour)
			return nil
		},
	})
}
