package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/ref/tool"
)

// childVariable makes the test binary a child that runs one foreground
// call producing that many bytes and prints its own peak memory: a fresh
// process, so that the peak is this call's alone.
const childVariable = "APEXCHECK_BENCH_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childVariable); v != "" {
		os.Exit(child(v))
	}
	os.Exit(m.Run())
}

// logLine is one line of the benchmark's output: log-like, 100 bytes with
// its line feed, a few characters not ASCII, so that decoding is not all
// the fast path.
const logLine = "2025-01-02T03:04:05Z INFO worker=7 processed item 123456 in 12.5ms (ok) — état ✓ done"

// chunkFile is the size of the file the producer repeats.
const chunkFile = 64 << 20

// prepare writes dir/lines.log, chunkFile bytes of log lines, and returns a
// command printing exactly size bytes of it: one cat of the file repeated,
// or one head -c of it. cat and head reading the page cache are about the
// cheapest producers there are, so that what is measured is what consumes
// the output.
func prepare(dir string, size int64) (string, error) {
	var b bytes.Buffer
	for b.Len() < chunkFile {
		b.WriteString(logLine + "\n")
	}
	file := dir + "/lines.log"
	if err := os.WriteFile(file, b.Bytes()[:chunkFile], 0o644); err != nil {
		return "", fmt.Errorf("prepare output: %w", err)
	}
	switch {
	case size <= chunkFile:
		return "head -c " + strconv.FormatInt(size, 10) + " " + file, nil
	case size%chunkFile == 0:
		return "cat" + strings.Repeat(" "+file, int(size/chunkFile)), nil
	}
	return "", fmt.Errorf("prepare output: %d bytes is neither at most nor a multiple of %d", size, chunkFile)
}

// newTool returns a reference tool whose shells run in dir with dir as
// HOME: a login shell reads the user's profile, and the machine's own
// profile can be slow or even block, which would measure the profile
// rather than the output.
func newTool(dir string) *tool.Tool {
	return tool.New(tool.Config{TempDir: dir, Env: benchEnv(dir)})
}

func benchEnv(dir string) []string {
	return append(os.Environ(), "HOME="+dir)
}

// runTool runs command as one foreground call of the reference tool and
// returns the size of the full-output file, the raw bytes the tool took
// in, and removes the file.
func runTool(t *tool.Tool, dir, command string) (int64, error) {
	args, _ := json.Marshal(map[string]string{"command": command})
	res := t.Execute(context.Background(), tool.Call{Args: args, Cwd: dir})
	if res.IsError {
		return 0, fmt.Errorf("call failed: %s", res.Text)
	}
	if res.Details == nil || res.Details.FullOutputPath == "" {
		return 0, fmt.Errorf("output was not truncated: %.200q", res.Text)
	}
	defer os.Remove(res.Details.FullOutputPath)
	info, err := os.Stat(res.Details.FullOutputPath)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// runShell runs command as the tool's shell would (bash -lc, same
// environment and directory), without the tool.
func runShell(dir, command string) error {
	cmd := exec.Command("bash", "-lc", command)
	cmd.Dir = dir
	cmd.Env = benchEnv(dir)
	return cmd.Run()
}

// BenchmarkForegroundOutput sends 1 GiB of log lines through a foreground
// call of the reference tool (shell, pipes, decoding, tail, full-output
// file) and, in the same iteration, runs the same command into /dev/null;
// it reports the tool's throughput as a fraction of the raw command's
// (ratio, target ≥ 0.8). Two more baselines in the same iteration show
// where the rest goes: the command piped into cat > /dev/null (the pipe
// any tool reads from) and into cat > a file (the pipe and the full-output
// file, the least work a conforming tool can do); ratio-pipe-file is the
// tool against the latter. It also reports the peak resident memory of a
// fresh process making one call of 10 MiB and one of 1 GiB (target ≤ 32
// MiB, the same for both: memory does not grow with the output).
func BenchmarkForegroundOutput(b *testing.B) {
	const size = 1 << 30
	dir := b.TempDir()
	command, err := prepare(dir, size)
	if err != nil {
		b.Fatal(err)
	}
	t := newTool(dir)
	sides := []struct {
		name string
		run  func() error
	}{
		{"raw", func() error { return runShell(dir, command+" > /dev/null") }},
		{"pipe", func() error { return runShell(dir, command+" | cat > /dev/null") }},
		{"pipe-file", func() error {
			defer os.Remove(dir + "/copy.log")
			return runShell(dir, command+" | cat > "+dir+"/copy.log")
		}},
		{"tool", func() error {
			n, err := runTool(t, dir, command)
			if err == nil && n != size {
				err = fmt.Errorf("the tool's full-output file holds %d bytes, want %d", n, size)
			}
			return err
		}},
	}
	times := make([]time.Duration, len(sides))
	b.SetBytes(size)
	b.ResetTimer()
	for i := range b.N {
		// Rotate the order so that no side always runs on a warmer machine.
		for k := range sides {
			j := (i + k) % len(sides)
			start := time.Now()
			if err := sides[j].run(); err != nil {
				b.Fatalf("%s: %v", sides[j].name, err)
			}
			times[j] += time.Since(start)
		}
	}
	b.StopTimer()
	raw, pipeFile, tl := times[0], times[2], times[3]
	b.ReportMetric(raw.Seconds()/tl.Seconds(), "ratio")
	b.ReportMetric(pipeFile.Seconds()/tl.Seconds(), "ratio-pipe-file")
	for j, s := range sides {
		b.ReportMetric(float64(size)*float64(b.N)/times[j].Seconds()/1e6, s.name+"-MB/s")
	}
	b.ReportMetric(peakMiB(b, 10<<20), "peakRSS-10MiB-MiB")
	b.ReportMetric(peakMiB(b, size), "peakRSS-1GiB-MiB")
}

// peakMiB runs one call of size bytes in a child process and returns the
// child's peak resident memory in MiB. The parent prepares the output file,
// so that the child holds nothing but the call.
func peakMiB(b *testing.B, size int64) float64 {
	dir := b.TempDir()
	command, err := prepare(dir, size)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childVariable+"="+strconv.FormatInt(size, 10)+" "+dir+" "+command)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("child: %v", err)
	}
	kb, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		b.Fatalf("child printed %q", out)
	}
	return float64(kb) / 1024
}

// child makes the call v describes ("<size> <dir> <command>") and prints
// its peak resident memory (VmHWM) in KiB.
func child(v string) int {
	fields := strings.SplitN(v, " ", 3)
	if len(fields) != 3 {
		fmt.Fprintln(os.Stderr, "bad child request:", v)
		return 2
	}
	size, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad size:", v)
		return 2
	}
	dir, command := fields[1], fields[2]
	n, err := runTool(newTool(dir), dir, command)
	if err != nil || n != size {
		fmt.Fprintf(os.Stderr, "child call: %d bytes, %v\n", n, err)
		return 1
	}
	kb, err := vmHWM()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println(kb)
	return 0
}

// vmHWM reads this process's peak resident set size in KiB.
func vmHWM() (int64, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("read peak memory: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		}
	}
	return 0, fmt.Errorf("read peak memory: no VmHWM in /proc/self/status")
}
