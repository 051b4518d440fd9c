package output

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
	"time"
)

// chunkSize is what a pipe read typically returns on Linux.
const chunkSize = 64 << 10

// logText returns at least n bytes of log-like output in whole lines, a few
// characters not ASCII; repeated, it stays valid text.
func logText(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		b.WriteString("2025-01-02T03:04:05Z INFO worker=" + strconv.Itoa(i%17) +
			" processed item " + strconv.Itoa(i) + " in 12.5ms (ok) — état ✓\n")
	}
	return b.Bytes()
}

// onlyWriter and onlyReader hide ReadFrom and WriteTo, so that io.CopyBuffer
// moves data through its buffer for both sinks alike.
type onlyWriter struct{ io.Writer }
type onlyReader struct{ io.Reader }

// BenchmarkThroughput compares bytes per second through the Accumulator
// (decoding, counting, the tail window and the full-output file) with a raw
// io.Copy to io.Discard of the same data from the same kind of source, both
// measured in each iteration, and reports their ratio (target ≥ 0.8).
//
// "pipe" reads from an os.Pipe fed by another goroutine, as the execution
// core reads a command's output; "memory" reads from memory and shows the
// Accumulator's own cost with nothing to hide it.
func BenchmarkThroughput(b *testing.B) {
	const size = 64 << 20
	data := logText(4 << 20)
	for _, source := range []string{"pipe", "memory"} {
		b.Run(source, func(b *testing.B) {
			dir := b.TempDir()
			buf := make([]byte, chunkSize)
			var rawTime, accTime time.Duration
			for i := range b.N {
				sinks := []func() (io.Writer, func()){
					func() (io.Writer, func()) { return onlyWriter{io.Discard}, func() {} },
					func() (io.Writer, func()) {
						a := NewAccumulator(Options{Dir: dir})
						return a, func() {
							a.Finish()
							s := a.Snapshot()
							if err := a.Close(); err != nil {
								b.Fatal(err)
							}
							if s.TotalBytes != size {
								b.Fatalf("accumulated %d bytes, want %d", s.TotalBytes, size)
							}
							b.StopTimer()
							os.Remove(s.FullOutputPath)
							b.StartTimer()
						}
					},
				}
				// Alternate the order so that neither side always runs on
				// a warmer machine.
				order := []int{0, 1}
				if i%2 == 1 {
					order = []int{1, 0}
				}
				for _, k := range order {
					sink, done := sinks[k]()
					start := time.Now()
					copyFrom(b, source, data, size, sink, buf)
					done()
					if k == 0 {
						rawTime += time.Since(start)
					} else {
						accTime += time.Since(start)
					}
				}
			}
			mbps := func(d time.Duration) float64 { return float64(size) * float64(b.N) / d.Seconds() / 1e6 }
			b.ReportMetric(mbps(rawTime), "raw-MB/s")
			b.ReportMetric(mbps(accTime), "acc-MB/s")
			b.ReportMetric(rawTime.Seconds()/accTime.Seconds(), "ratio")
		})
	}
}

// copyFrom moves size bytes of data (repeated) from the named source into
// sink with io.CopyBuffer.
func copyFrom(b *testing.B, source string, data []byte, size int, sink io.Writer, buf []byte) {
	var src io.Reader
	switch source {
	case "memory":
		src = io.LimitReader(&repeater{data: data}, int64(size))
	case "pipe":
		r, w, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		go func() {
			defer w.Close()
			rep := &repeater{data: data}
			chunk := make([]byte, chunkSize)
			for left := size; left > 0; {
				n, _ := rep.Read(chunk[:min(left, chunkSize)])
				if _, err := w.Write(chunk[:n]); err != nil {
					return
				}
				left -= n
			}
		}()
		src = r
	}
	if n, err := io.CopyBuffer(sink, onlyReader{src}, buf); err != nil || n != int64(size) {
		b.Fatalf("copied %d bytes: %v", n, err)
	}
}

// repeater reads data over and over, at most a pipe's chunk at a time.
type repeater struct {
	data []byte
	off  int
}

func (r *repeater) Read(p []byte) (int, error) {
	n := copy(p[:min(len(p), chunkSize)], r.data[r.off:])
	r.off = (r.off + n) % len(r.data)
	return n, nil
}

// BenchmarkPeakHeap writes 10 MiB and 1 GiB of output, as log lines and as
// one line with no newline, taking a snapshot every MiB as streamed updates
// would. It reports the largest heap seen, garbage included
// (peak-heap-MiB, target ≤ 32 MiB and the same for both sizes), and the
// largest live heap after a forced collection every 8 MiB
// (peak-live-MiB). Run it with -benchtime=1x: one pass is the measurement.
func BenchmarkPeakHeap(b *testing.B) {
	lines := logText(chunkSize)
	shapes := map[string][]byte{
		"lines":   lines[:bytes.LastIndexByte(lines[:chunkSize], '\n')+1],
		"oneline": bytes.Repeat([]byte("0123456789abcdef"), chunkSize/16),
	}
	for _, size := range []int64{10 << 20, 1 << 30} {
		for _, shape := range []string{"lines", "oneline"} {
			chunk := shapes[shape]
			b.Run(fmt.Sprintf("%s/%dMiB", shape, size>>20), func(b *testing.B) {
				dir := b.TempDir()
				var peak, live uint64
				for range b.N {
					runtime.GC()
					a := NewAccumulator(Options{Dir: dir})
					var written int64
					for step := 0; written < size; step++ {
						a.Write(chunk)
						written += int64(len(chunk))
						if step%16 == 0 { // about every MiB
							a.Snapshot()
							peak = max(peak, heapBytes())
						}
						if step%128 == 0 { // about every 8 MiB
							runtime.GC()
							live = max(live, heapBytes())
						}
					}
					a.Finish()
					s := a.Snapshot()
					peak = max(peak, heapBytes())
					if err := a.Close(); err != nil {
						b.Fatal(err)
					}
					if s.TotalBytes != written {
						b.Fatalf("accumulated %d bytes, want %d", s.TotalBytes, written)
					}
					b.StopTimer()
					os.Remove(s.FullOutputPath)
					b.StartTimer()
					b.SetBytes(written)
				}
				b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(live)/(1<<20), "peak-live-MiB")
			})
		}
	}
}

// heapBytes is the heap occupied by objects, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
