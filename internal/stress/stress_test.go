package stress

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/apexcheck/apexcheck/internal/roles"
	"github.com/apexcheck/apexcheck/protocol"
)

var (
	cycles  = flag.Int("cycles", 300, "start → handshake → call → shutdown cycles per implementation")
	workers = flag.Int("workers", 6, "cycles run at once; more than the cores, as on a busy CI runner")
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(ModeVariable); mode != "" {
		os.Exit(MinimalMain(mode))
	}
	roles.Dispatch()
	os.Exit(m.Run())
}

// bound is each step's limit. It is far above what a step takes (a few
// milliseconds), and the client extends it while the machine holds the
// implementation back, so that only a lost message, never a slow machine,
// can exceed it.
const bound = 30 * time.Second

// TestNoLostResponses runs many full lifecycles at once and fails on any
// error: every implementation here is conformant at the protocol level, so
// any error the runner reports is spurious. A cycle the machine spoiled
// (an answer still held back when the runner's extended bound ran out,
// client.NoAnswerError.Inconclusive) is counted and logged apart: it says
// nothing about the runner.
func TestNoLostResponses(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	impls := []struct {
		name string
		argv []string
		env  []string
	}{{name: "reference", argv: []string{self, roles.ServeArg}}}
	for _, mode := range Modes {
		impls = append(impls, struct {
			name string
			argv []string
			env  []string
		}{name: mode, argv: []string{self}, env: []string{ModeVariable + "=" + mode}})
	}
	var total, spurious, spoiled atomic.Int64
	defer func() {
		n, f := total.Load(), spurious.Load()
		fmt.Printf("stress: %d cycles over %d implementations, %d spurious errors (rate %.4f%%), %d spoiled by the machine\n",
			n, len(impls), f, 100*float64(f)/float64(max(n, 1)), spoiled.Load())
	}()
	for _, impl := range impls {
		t.Run(impl.name, func(t *testing.T) {
			dir := t.TempDir()
			env := append(os.Environ(), "HOME="+dir, "TMPDIR="+dir)
			env = append(env, impl.env...)
			var failed, heldBack atomic.Int64
			var mu sync.Mutex
			var first, held []string
			next := make(chan int)
			var wg sync.WaitGroup
			for range *workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range next {
						err := cycle(impl.argv, env, dir)
						var miss *client.NoAnswerError
						switch {
						case err == nil:
						case errors.As(err, &miss) && miss.Inconclusive:
							// The machine, not the runner nor the
							// implementation, kept the answer away.
							heldBack.Add(1)
							mu.Lock()
							held = append(held, err.Error())
							mu.Unlock()
						default:
							failed.Add(1)
							mu.Lock()
							if len(first) < 5 {
								first = append(first, err.Error())
							}
							mu.Unlock()
						}
					}
				}()
			}
			start := time.Now()
			for i := range *cycles {
				next <- i
			}
			close(next)
			wg.Wait()
			n := failed.Load()
			total.Add(int64(*cycles))
			spurious.Add(n)
			spoiled.Add(heldBack.Load())
			t.Logf("stress: %s: %d cycles in %v, %d spurious errors (%.3f%%), %d spoiled by the machine",
				impl.name, *cycles, time.Since(start).Round(time.Millisecond), n, 100*float64(n)/float64(*cycles), heldBack.Load())
			for _, e := range held {
				t.Logf("spoiled by the machine: %s", e)
			}
			for _, e := range first {
				t.Errorf("spurious error: %s", e)
			}
		})
	}
}

// cycle starts the implementation, completes the handshake, makes one
// call and shuts it down.
func cycle(argv, env []string, dir string) error {
	c, err := client.Start(argv, env, dir, bound, client.Options{})
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	defer c.Kill()
	args, _ := json.Marshal(map[string]string{"command": "echo ok"})
	resp, err := c.Roundtrip(protocol.Request{Type: protocol.TypeCall, Arguments: args, Cwd: dir}, bound)
	if err != nil {
		return fmt.Errorf("call: %w", err)
	}
	if resp.Type != protocol.TypeResult || resp.Result == nil || resp.Result.Text != "ok\n" {
		return fmt.Errorf("call: unexpected response %+v", resp)
	}
	if err := c.Shutdown(bound); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
