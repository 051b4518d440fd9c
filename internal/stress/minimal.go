package stress

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/apexcheck/apexcheck/protocol"
)

// ModeVariable selects a minimal implementation in a re-executed test
// binary.
const ModeVariable = "APEXCHECK_STRESS_IMPL"

// Modes of the minimal implementation, each a way to end right after the
// shutdown response.
const (
	// ExitAtOnce writes the shutdown response unbuffered and exits at once.
	ExitAtOnce = "exit-at-once"
	// Buffered keeps the shutdown response in a user-space buffer that is
	// flushed only as the very last act before exit, the way C's stdio
	// flushes at exit.
	Buffered = "buffered"
	// CloseThenExit writes the shutdown response, closes stdout, and only
	// then exits.
	CloseThenExit = "close-then-exit"
)

// Modes lists every minimal implementation mode.
var Modes = []string{ExitAtOnce, Buffered, CloseThenExit}

// MinimalMain is a protocol implementation that knows only hello, call
// (answered with a fixed result, nothing runs) and shutdown. It returns
// the process's exit code.
func MinimalMain(mode string) int {
	in := protocol.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	encode := func(r protocol.Response) []byte {
		b, _ := json.Marshal(r)
		return append(b, '\n')
	}
	for {
		line, err := in.Line()
		if err != nil {
			return 0
		}
		req, err := readRequest(line)
		if err != nil {
			fmt.Fprintln(os.Stderr, "minimal: bad request:", err)
			return 1
		}
		var resp protocol.Response
		switch req.Type {
		case protocol.TypeHello:
			resp = protocol.Response{ID: req.ID, Type: protocol.TypeHello, Protocol: protocol.Version,
				Implementation: &protocol.Implementation{Name: "minimal-" + mode, Version: "0", Language: "Go"}}
		case protocol.TypeCall:
			resp = protocol.Response{ID: req.ID, Type: protocol.TypeResult, Result: &protocol.Result{Text: "ok\n"}}
		case protocol.TypeShutdown:
			last := encode(protocol.Response{ID: req.ID, Type: protocol.TypeShutdown})
			switch mode {
			case Buffered:
				out.Write(last)
				out.Flush() // the last act before exit
			case CloseThenExit:
				os.Stdout.Write(last)
				os.Stdout.Close()
			default:
				os.Stdout.Write(last)
			}
			return 0
		default:
			resp = protocol.Response{ID: req.ID, Type: protocol.TypeError,
				Error: &protocol.Error{Code: protocol.ErrBadRequest, Message: "minimal: unknown request type " + req.Type}}
		}
		out.Write(encode(resp))
		out.Flush()
	}
}

// readRequest decodes a request, each member by its exact name (PROTO-20):
// "TYPE" is not the type, nor "ID" the id.
func readRequest(line []byte) (protocol.Request, error) {
	var req protocol.Request
	err := protocol.Unmarshal(line, &req)
	return req, err
}
