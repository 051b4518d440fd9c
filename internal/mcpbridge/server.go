package mcpbridge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// server is the MCP server's process and its stdio, as an MCP transport.
// The bridge starts it itself, rather than through the SDK's
// CommandTransport, to keep the last bytes the server wrote: a line that
// is not JSON is then quoted in the error, which names the server as the
// party at fault.
type server struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *tailReader
	done   chan struct{} // closed once the process has been waited for
	err    error         // of Wait, once done is closed
}

// startServer starts argv with its stderr going to stderr.
func startServer(argv []string, stderr io.Writer) (*server, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, stdin: stdin, stdout: &tailReader{r: stdout}, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// transport is the server's stdio as an MCP transport. Closing it stops
// the server (see stop).
func (s *server) transport() mcp.Transport {
	return &mcp.IOTransport{Reader: io.NopCloser(s.stdout), Writer: stopCloser{s}, MaxLineLength: -1}
}

type stopCloser struct{ s *server }

func (c stopCloser) Write(p []byte) (int, error) { return c.s.stdin.Write(p) }
func (c stopCloser) Close() error                { return c.s.stop() }

// stop ends the server as the MCP stdio transport says a client does:
// close its stdin, wait for it to exit, then SIGTERM, then SIGKILL, each
// after terminateWait.
func (s *server) stop() error {
	s.stdin.Close()
	for _, sig := range []syscall.Signal{0, syscall.SIGTERM, syscall.SIGKILL} {
		if sig != 0 {
			s.cmd.Process.Signal(sig)
		}
		select {
		case <-s.done:
			return nil
		case <-time.After(terminateWait):
		}
	}
	return fmt.Errorf("mcp server (pid %d) did not exit after SIGKILL", s.cmd.Process.Pid)
}

// exited is how the server ended, or "" while it runs.
func (s *server) exited() string {
	select {
	case <-s.done:
		if s.err == nil {
			return "exited with status 0"
		}
		return s.err.Error()
	default:
		return ""
	}
}

// blame rewrites an error of the connection to the server so that it
// names the server as the party at fault and says what it did.
func (s *server) blame(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax) || errors.As(err, &typ) || isTrailingData(err):
		return fmt.Errorf("the server wrote a line that is not JSON-RPC: %q: %w", s.stdout.badLine(), err)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		// The SDK reports a closed stdout as EOF; say how the server ended.
		select {
		case <-s.done:
		case <-time.After(time.Second):
		}
		if how := s.exited(); how != "" {
			return fmt.Errorf("the server closed its stdout and %s: %w", how, err)
		}
		return fmt.Errorf("the server closed its stdout: %w", err)
	}
	return err
}

func isTrailingData(err error) bool {
	return err != nil && bytes.Contains([]byte(err.Error()), []byte("invalid trailing data"))
}

// tailReader keeps the last bytes read through it.
type tailReader struct {
	r    io.Reader
	mu   sync.Mutex
	tail []byte
}

const tailMax = 4 << 10

func (t *tailReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.mu.Lock()
	t.tail = append(t.tail, p[:n]...)
	if len(t.tail) > tailMax {
		t.tail = append([]byte(nil), t.tail[len(t.tail)-tailMax:]...)
	}
	t.mu.Unlock()
	return n, err
}

// badLine is the first line among the last bytes read that is not a JSON
// value, cut to 200 bytes: the line the SDK's decoder stopped at.
func (t *tailReader) badLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := bytes.Split(t.tail, []byte("\n"))
	if len(t.tail) == tailMax && len(lines) > 1 {
		lines = lines[1:] // the first is a line's end
	}
	for _, l := range lines {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && !json.Valid(l) {
			if len(l) > 200 {
				return string(l[:200]) + "…"
			}
			return string(l)
		}
	}
	return string(bytes.TrimSpace(lines[len(lines)-1]))
}
