package output

import (
	"bytes"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// feed writes in to a new Accumulator in chunks of size (all at once when
// size ≤ 0), finishes and closes it, and returns its final snapshot.
func feed(t *testing.T, o Options, in []byte, size int) Snapshot {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	a := NewAccumulator(o)
	if size <= 0 {
		size = max(len(in), 1)
	}
	for i := 0; i < len(in); i += size {
		if n, err := a.Write(in[i:min(i+size, len(in))]); err != nil || n != min(size, len(in)-i) {
			t.Fatalf("Write returned %d, %v", n, err)
		}
	}
	a.Finish()
	s := a.Snapshot()
	if err := a.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return s
}

// expected is what OUT-18 says a snapshot holds: the tail of the whole
// decoded text.
func expected(in []byte, maxLines, maxBytes int) Result {
	text := refDecode(in)
	text = bytes.TrimPrefix(text, []byte("\uFEFF"))
	return TruncateTail(string(text), maxLines, maxBytes)
}

// scenarioInputs are the cases, as raw output.
func scenarioInputs() map[string][]byte {
	hundredK := strings.Repeat("x", 100*1024)
	return map[string][]byte{
		"empty":                        nil,
		"1999 lines with newline":      []byte(numbered(1999, true)),
		"1999 lines without newline":   []byte(numbered(1999, false)),
		"2000 lines with newline":      []byte(numbered(2000, true)),
		"2000 lines without newline":   []byte(numbered(2000, false)),
		"2001 lines with newline":      []byte(numbered(2001, true)),
		"2001 lines without newline":   []byte(numbered(2001, false)),
		"exactly 51200 bytes":          []byte(strings.Repeat("a", 51199) + "\n"),
		"51201 bytes":                  []byte(strings.Repeat("a", 51200) + "\n"),
		"51201 bytes, one line":        []byte(strings.Repeat("a", 51201)),
		"100 KB line without newline":  []byte(hundredK),
		"100 KB line with newline":     []byte(hundredK + "\n"),
		"multi-byte straddling":        []byte("€" + strings.Repeat("a", 51199)),
		"long line then short lines":   []byte(strings.Repeat("L", 60000) + "\nshort 1\nshort 2\nshort 3\n"),
		"invalid UTF-8":                append(bytes.Repeat([]byte("ok \xff\xe2\x82 \xed\xa0\x80\n"), 4000), 0xf0, 0x9f),
		"NUL bytes":                    bytes.Repeat([]byte("a\x00b\x00\n"), 20000),
		"ANSI and CR":                  bytes.Repeat([]byte("\x1b[31mred\x1b[0m\rprogress\r\n"), 3000),
		"line longer than the window":  []byte(strings.Repeat("W", 300000) + "\n"),
		"long line, newline, a little": []byte(strings.Repeat("V", 250000) + "\nend 1\nend 2\n"),
		"one huge line":                bytes.Repeat([]byte("0123456789€"), 100000),
	}
}

// TestAccumulatorMatchesTruncateTail checks OUT-18: however the output is
// cut into writes, the snapshot is the tail of the whole decoded text.
func TestAccumulatorMatchesTruncateTail(t *testing.T) {
	for name, in := range scenarioInputs() {
		t.Run(name, func(t *testing.T) {
			want := expected(in, 0, 0)
			for _, size := range []int{0, 1 << 16, 4096, 1000, 7} {
				if size == 1 && len(in) > 1<<20 {
					continue
				}
				got := feed(t, Options{}, in, size)
				if got.Result != want {
					t.Errorf("writes of %d bytes:\n got %s\nwant %s", size, describe(got.Result), describe(want))
				}
				if (got.FullOutputPath != "") != want.Truncated {
					t.Errorf("writes of %d bytes: full output path %q with truncated=%v", size, got.FullOutputPath, want.Truncated)
				}
			}
		})
	}
}

// TestAccumulatorRandom compares snapshots with the whole-text tail for
// random output, random writes and small limits that move the window a lot.
func TestAccumulatorRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := [][]byte{[]byte("a"), []byte("\n"), []byte("€"), []byte("😀"), {0xff}, {0xe2, 0x82}, {0xf0}, {0x80}, []byte("\uFEFF"), {0}}
	for iter := range 300 {
		var in []byte
		for range rng.IntN(400) {
			in = append(in, alphabet[rng.IntN(len(alphabet))]...)
		}
		maxLines, maxBytes := 1+rng.IntN(12), 1+rng.IntN(40)
		a := NewAccumulator(Options{Dir: t.TempDir(), MaxLines: maxLines, MaxBytes: maxBytes})
		for rest := in; len(rest) > 0; {
			n := min(1+rng.IntN(50), len(rest))
			a.Write(rest[:n])
			rest = rest[n:]
			if rng.IntN(4) == 0 {
				a.Snapshot() // snapshots must not disturb the stream
			}
		}
		a.Finish()
		got := a.Snapshot()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if want := expected(in, maxLines, maxBytes); got.Result != want {
			t.Fatalf("iteration %d, input %q, limits %d lines %d bytes:\n got %s\nwant %s",
				iter, in, maxLines, maxBytes, describe(got.Result), describe(want))
		}
		if got.FullOutputPath != "" {
			if file, err := os.ReadFile(got.FullOutputPath); err != nil || !bytes.Equal(file, in) {
				t.Fatalf("iteration %d: full-output file differs from the input (%v)", iter, err)
			}
		}
	}
}

// TestFullOutputFile checks OUT-19 to OUT-23: the file appears only when a
// limit is passed, holds the raw stream byte for byte, and stays on disk.
func TestFullOutputFile(t *testing.T) {
	namePattern := regexp.MustCompile(`^apex-code-bash-[0-9a-f]{16}\.log$`)
	for name, in := range scenarioInputs() {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := feed(t, Options{Dir: dir}, in, 4096)
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !s.Truncated {
				if s.FullOutputPath != "" || len(entries) != 0 {
					t.Fatalf("not truncated, yet path %q and %d files in the directory", s.FullOutputPath, len(entries))
				}
				return
			}
			if len(entries) != 1 || filepath.Join(dir, entries[0].Name()) != s.FullOutputPath {
				t.Fatalf("truncated: want exactly the file %q in the directory, have %v", s.FullOutputPath, entries)
			}
			if !namePattern.MatchString(entries[0].Name()) {
				t.Errorf("file name %q does not match %s", entries[0].Name(), namePattern)
			}
			file, err := os.ReadFile(s.FullOutputPath)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(file, in) {
				t.Errorf("file holds %d bytes that differ from the %d written", len(file), len(in))
			}
		})
	}
}

// TestInvalidUTF8 checks OUT-15 and OUT-20 together: the text shows U+FFFD
// where the file keeps the raw bytes.
func TestInvalidUTF8(t *testing.T) {
	in := append([]byte("head\n"), bytes.Repeat([]byte("bad \xff\xfe here\n"), 5000)...)
	s := feed(t, Options{}, in, 333)
	if !strings.HasSuffix(s.Content, "bad \uFFFD\uFFFD here") {
		t.Errorf("content ends %q, want U+FFFD for each invalid byte", s.Content[len(s.Content)-20:])
	}
	file, err := os.ReadFile(s.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, in) {
		t.Error("the full-output file is not the raw stream")
	}
	if s.TotalBytes != int64(len(refDecode(in))) {
		t.Errorf("TotalBytes = %d, want the decoded size %d", s.TotalBytes, len(refDecode(in)))
	}
}

// TestFileTriggers checks each condition of OUT-19 on its own.
func TestFileTriggers(t *testing.T) {
	bom := "\uFEFF"
	tests := []struct {
		name          string
		in            string
		wantFile      bool
		wantTruncated bool
	}{
		{"within limits", strings.Repeat("a\n", 2000), false, false},
		{"lines passed", strings.Repeat("\n", 2001), true, true},
		{"decoded bytes passed", strings.Repeat("€", 17067), true, true},
		// OUT-16: the mark is not text, so the text is within the limit,
		// but the raw stream passed it and the file is opened anyway.
		{"raw bytes passed, text within", bom + strings.Repeat("a", 51198), true, false},
		// Each invalid byte decodes to three bytes of U+FFFD.
		{"decoded bytes passed, raw within", strings.Repeat("\xff", 17067), true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := feed(t, Options{Dir: dir}, []byte(tt.in), 1000)
			if (s.FullOutputPath != "") != tt.wantFile || s.Truncated != tt.wantTruncated {
				t.Errorf("path %q, truncated %v; want file %v, truncated %v", s.FullOutputPath, s.Truncated, tt.wantFile, tt.wantTruncated)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != map[bool]int{false: 0, true: 1}[tt.wantFile] {
				t.Errorf("%d files in the directory", len(entries))
			}
		})
	}
}

// TestByteOrderMark checks OUT-16.
func TestByteOrderMark(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\uFEFFhello", "hello"},
		{"\uFEFF\uFEFFhello", "\uFEFFhello"},
		{"hi\uFEFF", "hi\uFEFF"},
		{"\xff\uFEFF", "\uFFFD\uFEFF"},
	}
	for _, tt := range tests {
		for _, size := range []int{0, 1, 2} {
			if got := feed(t, Options{}, []byte(tt.in), size).Content; got != tt.want {
				t.Errorf("%q in writes of %d: content %q, want %q", tt.in, size, got, tt.want)
			}
		}
	}
}

func TestDefaultDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	a := NewAccumulator(Options{})
	a.Write([]byte(strings.Repeat("x\n", 3000)))
	s := a.Snapshot()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(s.FullOutputPath) != dir {
		t.Errorf("file %q is not in $TMPDIR %q", s.FullOutputPath, dir)
	}
}

func TestPrefixOption(t *testing.T) {
	s := feed(t, Options{Prefix: "tool-x"}, []byte(strings.Repeat("x\n", 3000)), 0)
	if !regexp.MustCompile(`/tool-x-[0-9a-f]{16}\.log$`).MatchString(s.FullOutputPath) {
		t.Errorf("path %q does not use the prefix", s.FullOutputPath)
	}
}

// TestFileError checks that output keeps flowing when the file cannot be
// created, and that Close reports why.
func TestFileError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "missing")
	a := NewAccumulator(Options{Dir: dir})
	in := []byte(strings.Repeat("x\n", 3000))
	if n, err := a.Write(in); n != len(in) || err != nil {
		t.Fatalf("Write = %d, %v; want %d, nil", n, err, len(in))
	}
	s := a.Snapshot()
	if s.Result != TruncateTail(string(in), 0, 0) {
		t.Errorf("snapshot without a file: %s", describe(s.Result))
	}
	if s.FullOutputPath != "" {
		t.Errorf("path %q reported for a file that does not exist", s.FullOutputPath)
	}
	if err := a.Close(); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close = %v, want the creation error", err)
	}
}

// TestSnapshotFlushesFile checks that a snapshot taken while the command
// runs points to a file holding everything written so far.
func TestSnapshotFlushesFile(t *testing.T) {
	a := NewAccumulator(Options{Dir: t.TempDir(), MaxBytes: 10})
	defer a.Close()
	var written []byte
	for _, chunk := range []string{"0123456789", "abc", "def\n", "g"} {
		a.Write([]byte(chunk))
		written = append(written, chunk...)
		s := a.Snapshot()
		if s.FullOutputPath == "" {
			continue
		}
		file, err := os.ReadFile(s.FullOutputPath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(file, written) {
			t.Errorf("after %q the file holds %q, want %q", chunk, file, written)
		}
	}
}

// TestPendingSequence checks that a snapshot between writes leaves a split
// character pending, and that Finish turns an unfinished one into U+FFFD.
func TestPendingSequence(t *testing.T) {
	a := NewAccumulator(Options{Dir: t.TempDir()})
	defer a.Close()
	a.Write([]byte("a\xe2\x82"))
	if got := a.Snapshot().Content; got != "a" {
		t.Errorf("mid-character snapshot %q, want %q", got, "a")
	}
	a.Write([]byte("\xac"))
	if got := a.Snapshot().Content; got != "a€" {
		t.Errorf("completed character: %q, want %q", got, "a€")
	}
	a.Write([]byte("\xf0\x9f"))
	a.Finish()
	if got := a.Snapshot().Content; got != "a€\uFFFD" {
		t.Errorf("after Finish: %q, want %q", got, "a€\uFFFD")
	}
	a.Write([]byte("late"))
	if got := a.Snapshot().Content; got != "a€\uFFFD" {
		t.Errorf("a write after Finish changed the content to %q", got)
	}
}

// TestLastLineBytes checks OUT-26 for a partial last line with and without
// its newline.
func TestLastLineBytes(t *testing.T) {
	line := strings.Repeat("x", 100*1024)
	for _, in := range []string{line, line + "\n", "a\nb\n" + line, "a\n" + line + "\n"} {
		s := feed(t, Options{}, []byte(in), 8192)
		if !s.LastLinePartial || s.LastLineBytes != int64(len(line)) {
			t.Errorf("%d-byte input: partial %v, last line %d bytes; want partial, %d", len(in), s.LastLinePartial, s.LastLineBytes, len(line))
		}
	}
	if s := feed(t, Options{}, []byte("ab\ncde"), 1); s.LastLineBytes != 3 {
		t.Errorf("open last line: %d bytes, want 3", s.LastLineBytes)
	}
	if s := feed(t, Options{}, []byte("ab\ncde\n"), 2); s.LastLineBytes != 3 {
		t.Errorf("closed last line: %d bytes, want 3", s.LastLineBytes)
	}
}

// TestBoundedMemory checks OUT-25 on the Accumulator's own buffers: after
// 32 MiB in a single line and then in short lines, nothing it holds has
// grown with the input.
func TestBoundedMemory(t *testing.T) {
	for name, unit := range map[string][]byte{
		"one line":    bytes.Repeat([]byte("0123456789abcdef"), 4096),
		"short lines": bytes.Repeat([]byte("0123456789abcde\n"), 4096),
	} {
		t.Run(name, func(t *testing.T) {
			a := NewAccumulator(Options{Dir: t.TempDir()})
			defer a.Close()
			for range 32 << 20 / len(unit) {
				a.Write(unit)
			}
			limit := (winSlack + 2) * a.winSize
			if cap(a.win) > limit || a.raw != nil {
				t.Errorf("window capacity %d (limit %d), raw buffer %d bytes", cap(a.win), limit, len(a.raw))
			}
			if s := a.Snapshot(); s.TotalBytes != 32<<20 || s.OutputBytes > DefaultMaxBytes {
				t.Errorf("snapshot: %s", describe(s.Result))
			}
		})
	}
}

// TestConcurrentWrites checks that stdout and stderr pumps may write at
// once: every write arrives whole, and nothing is lost.
func TestConcurrentWrites(t *testing.T) {
	a := NewAccumulator(Options{Dir: t.TempDir()})
	lines := map[byte]string{'o': "stdout line\n", 'e': "stderr line, longer\n"}
	var wg sync.WaitGroup
	for _, line := range lines {
		wg.Go(func() {
			for range 5000 {
				a.Write([]byte(line))
			}
		})
	}
	wg.Wait()
	a.Finish()
	s := a.Snapshot()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if s.TotalLines != 10000 {
		t.Errorf("TotalLines = %d, want 10000", s.TotalLines)
	}
	file, err := os.ReadFile(s.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.SplitAfter(string(file), "\n") {
		if l != "" && l != lines['o'] && l != lines['e'] {
			t.Fatalf("interleaved write in the file: %q", l)
		}
	}
	if want := 5000 * (len(lines['o']) + len(lines['e'])); len(file) != want {
		t.Errorf("file holds %d bytes, want %d", len(file), want)
	}
}

func TestCloseTwice(t *testing.T) {
	a := NewAccumulator(Options{Dir: t.TempDir()})
	a.Write([]byte(strings.Repeat("x\n", 3000)))
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	s := a.Snapshot()
	if _, err := os.Stat(s.FullOutputPath); err != nil {
		t.Errorf("file gone after Close: %v", err)
	}
}

// TestFileWriteError checks OUT-33 for a file that was created but could
// not be written: it is removed, no path is reported (not even after more
// output), the footer says the output could not be saved, and Close reports
// the write error.
func TestFileWriteError(t *testing.T) {
	dir := t.TempDir()
	var created []string
	defer func(old func(string, string) (*os.File, string, error)) { create = old }(create)
	create = func(dir, prefix string) (*os.File, string, error) {
		f, path, err := createFile(dir, prefix)
		if err != nil {
			return nil, "", err
		}
		f.Close()
		created = append(created, path)
		// Read-only: every write fails.
		f, err = os.Open(path)
		return f, path, err
	}
	a := NewAccumulator(Options{Dir: dir})
	in := []byte(strings.Repeat("x\n", 3000))
	a.Write(in)
	if s := a.Snapshot(); s.FullOutputPath != "" {
		t.Errorf("path %q reported for a file that could not be written", s.FullOutputPath)
	}
	a.Write(in)
	a.Finish()
	s := a.Snapshot()
	if len(created) != 1 {
		t.Fatalf("%d files created, want 1", len(created))
	}
	if s.FullOutputPath != "" {
		t.Errorf("path %q reported after more output", s.FullOutputPath)
	}
	all := append(append([]byte(nil), in...), in...)
	if s.Result != TruncateTail(string(all), 0, 0) {
		t.Errorf("snapshot: %s", describe(s.Result))
	}
	if want := "[Showing lines 4001-6000 of 6000. " + NoFullOutput + "]"; s.Footer() != want {
		t.Errorf("Footer = %q, want %q", s.Footer(), want)
	}
	if err := a.Close(); err == nil || !strings.Contains(err.Error(), "write full-output file") {
		t.Errorf("Close = %v, want the write error", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the unwritable file was left behind: %d entries in the directory", len(entries))
	}
}

// TestLargeFile checks that the file keeps a raw stream of over 8 MiB whole
// and in order, written in pieces of odd sizes, smaller and larger than the
// file buffer, with snapshots (which flush it) in between.
func TestLargeFile(t *testing.T) {
	in := make([]byte, 8<<20+12345)
	for i := range in {
		in[i] = byte(i*7 + i/4099)
	}
	a := NewAccumulator(Options{Dir: t.TempDir()})
	for off, step := 0, 1; off < len(in); step++ {
		n := min(len(in)-off, step*977%(3*fileBuffer)+1)
		a.Write(in[off : off+n])
		off += n
		if step%50 == 0 {
			a.Snapshot()
		}
	}
	a.Finish()
	s := a.Snapshot()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(s.FullOutputPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, in) {
		i := 0
		for i < len(file) && i < len(in) && file[i] == in[i] {
			i++
		}
		t.Errorf("file holds %d bytes, want %d; first difference at %d", len(file), len(in), i)
	}
}
