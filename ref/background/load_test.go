package background_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/background"
	"github.com/apexcheck/apexcheck/ref/call"
	"github.com/apexcheck/apexcheck/ref/output"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// hang bounds every wait: a guard against a hung test, never an assertion
// about speed.
const hang = 60 * time.Second

// pipeClient drives an in-process server over the wire protocol.
type pipeClient struct {
	t     *testing.T
	w     *protocol.Writer
	stdin io.Closer
	done  chan error // Serve's return

	mu      sync.Mutex
	next    int
	waiting map[string]chan protocol.Response
}

func startServer(t *testing.T, s *server.Server) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &pipeClient{t: t, w: protocol.NewWriter(inW), stdin: inW, done: make(chan error, 1),
		waiting: map[string]chan protocol.Response{}}
	go func() {
		err := s.Serve(inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		r := protocol.NewReader(outR)
		for {
			line, err := r.Line()
			if err != nil {
				return
			}
			var resp protocol.Response
			if json.Unmarshal(line, &resp) != nil || resp.Type == protocol.TypeUpdate {
				continue
			}
			c.mu.Lock()
			ch := c.waiting[resp.ID]
			delete(c.waiting, resp.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- resp
			}
		}
	}()
	return c
}

// call sends one call and waits for its result.
func (c *pipeClient) call(args string) protocol.Result {
	c.mu.Lock()
	c.next++
	id := "c" + strconv.Itoa(c.next)
	ch := make(chan protocol.Response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	dir := c.t.TempDir()
	if err := c.w.Write(protocol.Request{ID: id, Type: protocol.TypeCall, Arguments: json.RawMessage(args), Cwd: dir}); err != nil {
		c.t.Errorf("send %s: %v", args, err)
		return protocol.Result{}
	}
	select {
	case resp := <-ch:
		if resp.Result == nil {
			c.t.Errorf("call %s answered %+v", args, resp)
			return protocol.Result{}
		}
		return *resp.Result
	case <-time.After(hang):
		c.t.Fatalf("no answer to %s", args)
		return protocol.Result{}
	}
}

// retrieveUntil retrieves handle until its text matches re.
func (c *pipeClient) retrieveUntil(handle string, re *regexp.Regexp) protocol.Result {
	deadline := time.Now().Add(hang)
	for {
		res := c.call(`{"handle":"` + handle + `"}`)
		if re.MatchString(res.Text) {
			return res
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("retrieval of %s never matched %s; last:\n%.300s", handle, re, res.Text)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func perEntry(after, before uint64, n int) float64 {
	if after < before {
		return 0
	}
	return float64(after-before) / float64(n) / 1024
}

// TestLoad launches 50 background commands, each writing 50000 lines,
// with a foreground call interleaved after each launch, all in flight at
// once. Every entry must be retrievable with the right status and output,
// the foreground calls must answer, memory must stay bounded per entry,
// and closing stdin must kill every entry still running (BG-25, BG-26).
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const n = 50
	const lines = 50000
	var b [8]byte
	rand.Read(b[:])
	mark := hex.EncodeToString(b[:])
	t.Setenv("APEXCHECK_LOAD_MARK", mark)
	t.Setenv("HOME", t.TempDir()) // the shells are login shells: keep the host's profile out
	t.Setenv("TMPDIR", t.TempDir())
	dir := t.TempDir()

	var reg *background.Registry
	srv := server.ReferenceWith(func(c *tool.Config) { reg = c.Background.(*background.Registry) })
	c := startServer(t, srv)
	before := heapAlloc()

	// Even entries wait for $dir/go and exit with i%7; odd ones run until
	// disposal kills them.
	command := func(i int) string {
		end := "exec sleep 300"
		if i%2 == 0 {
			end = fmt.Sprintf("until [ -e %s/go ]; do sleep 0.05; done; exit %d", dir, i%7)
		}
		return fmt.Sprintf("seq 1 %d | sed 's/^/%d:/'; touch %s/up-%d; %s", lines, i, dir, i, end)
	}
	handles := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			args, _ := json.Marshal(map[string]any{"command": command(i), "background": true})
			res := c.call(string(args))
			h, ok := strings.CutPrefix(strings.SplitN(res.Text, "\n", 2)[0], "[background] launched with handle ")
			if res.IsError || !ok {
				t.Errorf("launch %d: %q", i, res.Text)
			}
			handles[i] = h
		}()
		go func() {
			defer wg.Done()
			res := c.call(fmt.Sprintf(`{"command":"echo fg-%d"}`, i))
			if res.IsError || res.Text != fmt.Sprintf("fg-%d\n", i) {
				t.Errorf("foreground %d: %+v", i, res)
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		c.stdin.Close()
		<-c.done
		t.FailNow()
	}

	// Every entry has written everything and the registry has read it.
	for i, h := range handles {
		c.retrieveUntil(h, regexp.MustCompile(fmt.Sprintf(`\n%d:%d\n\n\[Showing lines %d-%d of %d\. Full output: \S+\]\z`,
			i, lines, lines-1999, lines, lines)))
	}
	running := heapAlloc()

	if err := os.Mkdir(filepath.Join(dir, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, h := range handles {
		if i%2 == 1 {
			res := c.call(`{"handle":"` + h + `"}`)
			if !strings.HasPrefix(res.Text, "[background] "+h+": running ") {
				t.Errorf("entry %d: %.100q, want running", i, res.Text)
			}
			continue
		}
		res := c.retrieveUntil(h, regexp.MustCompile(`: exited `))
		want := fmt.Sprintf("[background] %s: exited (code %d) after ", h, i%7)
		if !strings.HasPrefix(res.Text, want) || res.IsError {
			t.Errorf("entry %d: %.100q, want prefix %q", i, res.Text, want)
		}
		if ex := res.Details.Execution; ex == nil || ex.ExitCode == nil || *ex.ExitCode != i%7 {
			t.Errorf("entry %d: execution %+v", i, ex)
		}
		if tr := res.Details.Truncation; tr == nil || tr.TotalLines != lines || tr.OutputLines != 2000 {
			t.Errorf("entry %d: truncation %+v", i, tr)
		}
		if data, err := os.ReadFile(res.Details.FullOutputPath); err != nil || strings.Count(string(data), "\n") != lines {
			t.Errorf("entry %d: full output %s: %v, %d lines", i, res.Details.FullOutputPath, err, strings.Count(string(data), "\n"))
		}
	}
	halfEnded := heapAlloc()

	// Disposal on stdin close: the odd entries are killed, nothing with
	// the mark survives.
	c.stdin.Close()
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(hang):
		t.Fatal("server did not stop after stdin closed")
	}
	for i, h := range handles {
		res := reg.Handle(call.Operation{Kind: call.Retrieve, Handle: h})
		state := "exited"
		if i%2 == 1 {
			state = "killed"
		}
		if !strings.HasPrefix(res.Text, "[background] "+h+": "+state+" (code ") {
			t.Errorf("entry %d after disposal: %.100q, want %s", i, res.Text, state)
		}
	}
	if pids := marked(mark); len(pids) > 0 {
		t.Errorf("%d process(es) survived disposal: %v", len(pids), pids)
	}

	perRunning := perEntry(running, before, n)
	// Half the entries ended between the two measures: what each of them
	// still holds is the rest once the running half is taken away.
	perEnded := 2*perEntry(halfEnded, before, n) - perRunning
	t.Logf("heap per entry, all %d running with %d lines (~%d KiB) each: %.0f KiB", n, lines,
		(len(fmt.Sprint(lines))+4)*lines/1024, perRunning)
	t.Logf("heap per entry once ended: about %.0f KiB", perEnded)
	// OUT-25 bounds an accumulator by a small multiple of maxBytes; a
	// running entry adds two pipe readers and its waiter. An ended entry
	// keeps one tail of at most maxBytes (BG-26).
	if limit := 1024.0; perRunning > limit {
		t.Errorf("%.0f KiB per running entry, more than %.0f KiB", perRunning, limit)
	}
	if limit := 128.0; perEnded > limit {
		t.Errorf("about %.0f KiB per ended entry, more than %.0f KiB", perEnded, limit)
	}
}

// marked lists live processes whose environment carries the load mark.
func marked(mark string) []int {
	needle := "\x00APEXCHECK_LOAD_MARK=" + mark + "\x00"
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	var pids []int
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err != nil || pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains("\x00"+string(data), needle) {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestAccumulatorFootprint measures what one entry's accumulator holds
// after a large output, the memory BG-26 bounds.
func TestAccumulatorFootprint(t *testing.T) {
	const n = 20
	line := strings.Repeat("x", 99) + "\n"
	chunk := []byte(strings.Repeat(line, 100)) // 10 000 bytes
	before := heapAlloc()
	accs := make([]*output.Accumulator, n)
	for i := range accs {
		accs[i] = output.NewAccumulator(output.Options{Dir: t.TempDir()})
		for range 200 { // 2 MB each
			accs[i].Write(chunk)
		}
		accs[i].Snapshot()
	}
	running := heapAlloc()
	snaps := make([]output.Snapshot, n)
	for i, a := range accs {
		a.Close()
		snaps[i] = a.Snapshot()
		accs[i] = nil
	}
	ended := heapAlloc()
	t.Logf("accumulator after 2 MB: %.0f KiB; final snapshot kept once ended: %.0f KiB",
		perEntry(running, before, n), perEntry(ended, before, n))
	runtime.KeepAlive(snaps)
	if kib := perEntry(running, before, n); kib > 512 {
		t.Errorf("%.0f KiB per accumulator, more than 512 KiB", kib)
	}
	if kib := perEntry(ended, before, n); kib > 80 {
		t.Errorf("%.0f KiB per ended entry, more than 80 KiB", kib)
	}
}
