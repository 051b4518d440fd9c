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
	"syscall"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/ref/tool"
)

// childVariable makes the test binary a child that makes one foreground
// call and prints its own peak memory: a fresh process, so that the peak is
// that call's alone.
const childVariable = "APEXCHECK_BENCH_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childVariable); v != "" {
		os.Exit(child(v))
	}
	os.Exit(m.Run())
}

// size is how much output the throughput benchmark sends: 1 GiB.
const size = 1 << 30

// logLine is one line of the benchmark's output: log-like, 100 bytes with
// its line feed, a few characters not ASCII, so that decoding is not all
// the ASCII fast path.
const logLine = "2025-01-02T03:04:05Z INFO worker=7 processed item 123456 in 12.5ms (ok) — état ✓ done"

// chunkFile is the size of the file the cat producer repeats.
const chunkFile = 64 << 20

// producers are the commands whose output the benchmarks consume, each
// printing exactly n bytes of log lines; file is a chunkFile-byte file of
// them. "cat" reads the page cache, about the cheapest producer there is,
// so that its figures show what consuming the output costs; "yes" is a
// pipeline of two ordinary programs (yes | head), closer to a command that
// does some work of its own.
var producers = []struct {
	name    string
	command func(file string, n int64) (string, error)
}{
	{"cat", func(file string, n int64) (string, error) {
		switch {
		case n <= chunkFile:
			return "head -c " + strconv.FormatInt(n, 10) + " " + file, nil
		case n%chunkFile == 0:
			return "cat" + strings.Repeat(" "+file, int(n/chunkFile)), nil
		}
		return "", fmt.Errorf("%d bytes is neither at most nor a multiple of %d", n, chunkFile)
	}},
	{"yes", func(file string, n int64) (string, error) {
		return "yes '" + logLine + "' | head -c " + strconv.FormatInt(n, 10), nil
	}},
}

// prepare writes dir/lines.log, chunkFile bytes of log lines, without
// holding them in memory (the child's peak memory must be the call's).
func prepare(dir string) (string, error) {
	file := dir + "/lines.log"
	f, err := os.Create(file)
	if err != nil {
		return "", fmt.Errorf("prepare output: %w", err)
	}
	w := bufio.NewWriter(f)
	for written := 0; written < chunkFile; {
		line := logLine + "\n"
		if chunkFile-written < len(line) {
			line = line[:chunkFile-written]
		}
		w.WriteString(line)
		written += len(line)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", fmt.Errorf("prepare output: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("prepare output: %w", err)
	}
	return file, nil
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
// ratio is the tool's throughput as a fraction of the raw command's (target
// ≥ 0.8). Two more baselines in the same iteration show where the rest
// goes: the command piped into cat > /dev/null (the pipe any tool reads)
// and into cat > a file (the pipe and the full-output file: the least work
// a conforming tool can do); ratio-pipe-file is the tool against the
// latter. Each side's CPU time (this process and its children) is
// reported too, since it varies less than elapsed time on a shared
// machine.
func BenchmarkForegroundOutput(b *testing.B) {
	dir := b.TempDir()
	file, err := prepare(dir)
	if err != nil {
		b.Fatal(err)
	}
	t := newTool(dir)
	for _, p := range producers {
		b.Run(p.name, func(b *testing.B) {
			command, err := p.command(file, size)
			if err != nil {
				b.Fatal(err)
			}
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
			cpus := make([]time.Duration, len(sides))
			b.SetBytes(size)
			b.ResetTimer()
			for i := range b.N {
				// Rotate the order so that no side always runs on a warmer
				// machine.
				for k := range sides {
					j := (i + k) % len(sides)
					start, cpu := time.Now(), cpuTime()
					if err := sides[j].run(); err != nil {
						b.Fatalf("%s: %v", sides[j].name, err)
					}
					times[j] += time.Since(start)
					cpus[j] += cpuTime() - cpu
				}
			}
			b.StopTimer()
			raw, pipeFile, tl := times[0], times[2], times[3]
			b.ReportMetric(raw.Seconds()/tl.Seconds(), "ratio")
			b.ReportMetric(pipeFile.Seconds()/tl.Seconds(), "ratio-pipe-file")
			for j, s := range sides {
				b.ReportMetric(float64(size)*float64(b.N)/times[j].Seconds()/1e6, s.name+"-MB/s")
				b.ReportMetric(cpus[j].Seconds()/float64(b.N), s.name+"-cpu-s")
			}
		})
	}
}

// BenchmarkForegroundPeakRSS reports the peak resident memory of a fresh
// process making one foreground call of 10 MiB and one of 1 GiB of log
// lines (target ≤ 32 MiB, and the same for both: memory does not grow with
// the output). One measurement each, whatever b.N.
func BenchmarkForegroundPeakRSS(b *testing.B) {
	dir := b.TempDir()
	file, err := prepare(dir)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		b.ReportMetric(peakMiB(b, dir, file, 10<<20), "peakRSS-10MiB-MiB")
		b.ReportMetric(peakMiB(b, dir, file, size), "peakRSS-1GiB-MiB")
	}
}

// cpuTime is the CPU time, user and system, used so far by this process
// and by its children that have been waited for.
func cpuTime() time.Duration {
	var total time.Duration
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			total += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
	}
	return total
}

// peakMiB runs one call of n bytes (the cat producer) in a child process
// and returns the child's peak resident memory in MiB.
func peakMiB(b *testing.B, dir, file string, n int64) float64 {
	command, err := producers[0].command(file, n)
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childVariable+"="+strconv.FormatInt(n, 10)+" "+dir+" "+command)
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
	n, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bad size:", v)
		return 2
	}
	dir, command := fields[1], fields[2]
	got, err := runTool(newTool(dir), dir, command)
	if err != nil || got != n {
		fmt.Fprintf(os.Stderr, "child call: %d bytes, %v\n", got, err)
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
