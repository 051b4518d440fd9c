package output

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzTruncateTail checks the invariants of the tail algorithm (OUT-3 to
// OUT-7) on any text and limits.
func FuzzTruncateTail(f *testing.F) {
	f.Add("", uint16(2), uint16(10))
	f.Add("a\nb\nc\n", uint16(2), uint16(100))
	f.Add("aaa\nbbbb\nc", uint16(10), uint16(9))
	f.Add("x😀y€\n\n\nz", uint16(3), uint16(4))
	f.Add(strings.Repeat("€", 50), uint16(1), uint16(7))
	f.Add("aaaa\n", uint16(5), uint16(4))
	f.Fuzz(func(t *testing.T, text string, lines, size uint16) {
		maxLines, maxBytes := 1+int(lines%64), 1+int(size%256)
		r := TruncateTail(text, maxLines, maxBytes)
		if err := checkTail(text, r, maxLines, maxBytes); err != "" {
			t.Fatalf("TruncateTail(%q, %d, %d) = %s: %s", text, maxLines, maxBytes, describe(r), err)
		}
	})
}

// checkTail returns what is wrong with r as the tail of text, or "".
func checkTail(text string, r Result, maxLines, maxBytes int) string {
	// Counts consistent with the input (OUT-2, OUT-3).
	if r.TotalBytes != int64(len(text)) || r.TotalLines != countLines([]byte(text)) {
		return "totals do not count the input"
	}
	if r.MaxLines != maxLines || r.MaxBytes != maxBytes {
		return "limits not reported"
	}
	if r.OutputBytes != len(r.Content) {
		return "OutputBytes is not the size of Content"
	}
	if utf8.ValidString(text) && !utf8.ValidString(r.Content) {
		return "content is not valid UTF-8"
	}
	over := r.TotalLines > maxLines || r.TotalBytes > int64(maxBytes)
	if r.Truncated != over {
		return "Truncated does not match the limits"
	}
	if !r.Truncated {
		// OUT-4.
		if r.Content != text || r.TruncatedBy != "" || r.LastLinePartial || r.OutputLines != r.TotalLines {
			return "an untruncated text must be kept as it is"
		}
		return ""
	}
	// Within both limits.
	if r.OutputBytes > maxBytes || r.OutputLines > maxLines || r.OutputLines < 1 {
		return "output outside the limits"
	}
	if r.TruncatedBy != ByLines && r.TruncatedBy != ByBytes {
		return "TruncatedBy neither lines nor bytes"
	}
	// A suffix of the input, less one trailing newline (OUT-5).
	body := strings.TrimSuffix(text, "\n")
	if !strings.HasSuffix(body, r.Content) {
		return "content is not a suffix of the input"
	}
	before := body[:len(body)-len(r.Content)]
	if r.LastLinePartial {
		// OUT-6: the end of the last line, as much as fits from a
		// character start.
		if r.OutputLines != 1 || strings.Contains(r.Content, "\n") {
			return "a partial line must be alone"
		}
		last := body[strings.LastIndexByte(body, '\n')+1:]
		if len(last) <= maxBytes {
			return "a line that fits was cut"
		}
		if cut := len(last) - maxBytes; len(r.Content) < maxBytes && !isContinuation(last[cut]) {
			return "the cut did not start maxBytes before the end"
		}
		if utf8.ValidString(text) && len(r.Content) < maxBytes-(utf8.UTFMax-1) {
			return "the cut moved more than a character forward"
		}
		return ""
	}
	// Whole lines: the kept text starts a line, and the line before it
	// (if any) did not fit.
	if before != "" && !strings.HasSuffix(before, "\n") {
		return "content starts in the middle of a line"
	}
	if got := strings.Count(r.Content, "\n") + 1; got != r.OutputLines {
		return "OutputLines does not count the kept lines"
	}
	if before != "" && r.OutputLines < maxLines {
		prev := strings.TrimSuffix(before, "\n")
		prev = prev[strings.LastIndexByte(prev, '\n')+1:]
		if r.OutputBytes+1+len(prev) <= maxBytes {
			return "a line that fits was left out"
		}
		if r.TruncatedBy != ByBytes {
			return "stopped by bytes but not reported so"
		}
	}
	return ""
}

func isContinuation(b byte) bool { return b&0xC0 == 0x80 }

// FuzzAccumulator checks OUT-15, OUT-18 and OUT-20 on any byte stream cut
// into any writes: the snapshot is the tail of the whole decoded text, and
// the file is the raw stream.
func FuzzAccumulator(f *testing.F) {
	f.Add([]byte("a\nb\xff\xe2\x82c\n"), []byte{1, 3, 2}, uint8(2), uint8(5))
	f.Add(bytes.Repeat([]byte("€😀\n"), 40), []byte{7, 1}, uint8(3), uint8(9))
	f.Add([]byte("\xef\xbb\xbfbom\n"), []byte{1}, uint8(1), uint8(1))
	f.Add(bytes.Repeat([]byte("x"), 500), []byte{50, 3}, uint8(4), uint8(16))
	f.Fuzz(func(t *testing.T, in, cuts []byte, lines, size uint8) {
		maxLines, maxBytes := 1+int(lines%16), 1+int(size%64)
		dir := t.TempDir()
		a := NewAccumulator(Options{Dir: dir, MaxLines: maxLines, MaxBytes: maxBytes})
		rest := in
		for i := 0; len(rest) > 0; i++ {
			n := len(rest)
			if len(cuts) > 0 {
				n = min(1+int(cuts[i%len(cuts)]), n)
			}
			a.Write(rest[:n])
			rest = rest[n:]
		}
		a.Finish()
		got := a.Snapshot()
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		want := expected(in, maxLines, maxBytes)
		if got.Result != want {
			t.Fatalf("snapshot:\n got %s\nwant %s", describe(got.Result), describe(want))
		}
		if got.FullOutputPath == "" {
			if want.Truncated {
				t.Fatal("truncated without a file")
			}
			return
		}
		if file, err := os.ReadFile(got.FullOutputPath); err != nil || !bytes.Equal(file, in) {
			t.Fatalf("file differs from the stream (%v)", err)
		}
	})
}
