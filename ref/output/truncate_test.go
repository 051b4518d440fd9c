package output

import (
	"strconv"
	"strings"
	"testing"
)

// numbered returns n lines "line 1" … "line n", each ending in "\n" when
// trailing is set, otherwise all but the last.
func numbered(n int, trailing bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString("line " + strconv.Itoa(i))
		if i < n || trailing {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// linesFrom returns lines first…last of numbered, joined, without a
// trailing newline.
func linesFrom(first, last int) string {
	var parts []string
	for i := first; i <= last; i++ {
		parts = append(parts, "line "+strconv.Itoa(i))
	}
	return strings.Join(parts, "\n")
}

func TestTruncateTail(t *testing.T) {
	euro := "€" // E2 82 AC
	hundredK := strings.Repeat("x", 100*1024)
	longThenShort := strings.Repeat("L", 60000) + "\nshort 1\nshort 2\nshort 3\n"
	// 512 lines of 100 bytes each: exactly 51200 bytes.
	block := strings.Repeat(strings.Repeat("b", 99)+"\n", 512)

	tests := []struct {
		name string
		text string
		want Result // MaxLines/MaxBytes are filled in from the defaults
	}{
		// OUT-3: line counting.
		{"empty", "", Result{}},
		{"one line with newline", "a\n", Result{Content: "a\n", TotalLines: 1, TotalBytes: 2, OutputLines: 1, OutputBytes: 2}},
		{"two lines without newline", "a\nb", Result{Content: "a\nb", TotalLines: 2, TotalBytes: 3, OutputLines: 2, OutputBytes: 3}},
		{"blank last line", "a\n\n", Result{Content: "a\n\n", TotalLines: 2, TotalBytes: 3, OutputLines: 2, OutputBytes: 3}},
		{"lone newline", "\n", Result{Content: "\n", TotalLines: 1, TotalBytes: 1, OutputLines: 1, OutputBytes: 1}},
		{"CR is not a line break", "a\rb\r", Result{Content: "a\rb\r", TotalLines: 1, TotalBytes: 4, OutputLines: 1, OutputBytes: 4}},

		// OUT-1, OUT-4, OUT-5: the line limit.
		{"1999 lines with newline", numbered(1999, true), Result{Content: numbered(1999, true), TotalLines: 1999, TotalBytes: int64(len(numbered(1999, true))), OutputLines: 1999, OutputBytes: len(numbered(1999, true))}},
		{"1999 lines without newline", numbered(1999, false), Result{Content: numbered(1999, false), TotalLines: 1999, TotalBytes: int64(len(numbered(1999, false))), OutputLines: 1999, OutputBytes: len(numbered(1999, false))}},
		{"2000 lines with newline", numbered(2000, true), Result{Content: numbered(2000, true), TotalLines: 2000, TotalBytes: int64(len(numbered(2000, true))), OutputLines: 2000, OutputBytes: len(numbered(2000, true))}},
		{"2000 lines without newline", numbered(2000, false), Result{Content: numbered(2000, false), TotalLines: 2000, TotalBytes: int64(len(numbered(2000, false))), OutputLines: 2000, OutputBytes: len(numbered(2000, false))}},
		{"2001 lines with newline", numbered(2001, true), Result{Content: linesFrom(2, 2001), Truncated: true, TruncatedBy: ByLines, TotalLines: 2001, TotalBytes: int64(len(numbered(2001, true))), OutputLines: 2000, OutputBytes: len(linesFrom(2, 2001))}},
		{"2001 lines without newline", numbered(2001, false), Result{Content: linesFrom(2, 2001), Truncated: true, TruncatedBy: ByLines, TotalLines: 2001, TotalBytes: int64(len(numbered(2001, false))), OutputLines: 2000, OutputBytes: len(linesFrom(2, 2001))}},
		{"2001 empty lines", strings.Repeat("\n", 2001), Result{Content: strings.Repeat("\n", 1999), Truncated: true, TruncatedBy: ByLines, TotalLines: 2001, TotalBytes: 2001, OutputLines: 2000, OutputBytes: 1999}},

		// OUT-1, OUT-5: the byte limit.
		{"exactly 51200 bytes, one line", strings.Repeat("a", 51200), Result{Content: strings.Repeat("a", 51200), TotalLines: 1, TotalBytes: 51200, OutputLines: 1, OutputBytes: 51200}},
		{"exactly 51200 bytes, newline last", strings.Repeat("a", 51199) + "\n", Result{Content: strings.Repeat("a", 51199) + "\n", TotalLines: 1, TotalBytes: 51200, OutputLines: 1, OutputBytes: 51200}},
		{"exactly 51200 bytes, 512 lines", block, Result{Content: block, TotalLines: 512, TotalBytes: 51200, OutputLines: 512, OutputBytes: 51200}},
		{"51201 bytes, 513 lines", block + "y", Result{Content: strings.Repeat(strings.Repeat("b", 99)+"\n", 511) + "y", Truncated: true, TruncatedBy: ByBytes, TotalLines: 513, TotalBytes: 51201, OutputLines: 512, OutputBytes: 51101}},
		{"51201 bytes, one line", strings.Repeat("a", 51201), Result{Content: strings.Repeat("a", 51200), Truncated: true, TruncatedBy: ByBytes, TotalLines: 1, TotalBytes: 51201, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
		// OUT-7: every line fits once the trailing newline is dropped, and
		// upstream's initial "lines" stands.
		{"51201 bytes, newline last", strings.Repeat("a", 51200) + "\n", Result{Content: strings.Repeat("a", 51200), Truncated: true, TruncatedBy: ByLines, TotalLines: 1, TotalBytes: 51201, OutputLines: 1, OutputBytes: 51200}},

		// OUT-6: partial last line.
		{"100 KB line without newline", hundredK, Result{Content: hundredK[:51200], Truncated: true, TruncatedBy: ByBytes, TotalLines: 1, TotalBytes: 102400, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
		{"100 KB line with newline", hundredK + "\n", Result{Content: hundredK[:51200], Truncated: true, TruncatedBy: ByBytes, TotalLines: 1, TotalBytes: 102401, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
		{"short lines then 100 KB line", "a\nb\n" + hundredK, Result{Content: hundredK[:51200], Truncated: true, TruncatedBy: ByBytes, TotalLines: 3, TotalBytes: 102404, OutputLines: 1, OutputBytes: 51200, LastLinePartial: true}},
		{"multi-byte character straddling the cut", euro + strings.Repeat("a", 51199), Result{Content: strings.Repeat("a", 51199), Truncated: true, TruncatedBy: ByBytes, TotalLines: 1, TotalBytes: 51202, OutputLines: 1, OutputBytes: 51199, LastLinePartial: true}},
		{"multi-byte characters only", strings.Repeat(euro, 20000), Result{Content: strings.Repeat(euro, 17066), Truncated: true, TruncatedBy: ByBytes, TotalLines: 1, TotalBytes: 60000, OutputLines: 1, OutputBytes: 51198, LastLinePartial: true}},

		// OUT-5: a long line stops the walk; the short lines after it stay.
		{"long line then short lines", longThenShort, Result{Content: "short 1\nshort 2\nshort 3", Truncated: true, TruncatedBy: ByBytes, TotalLines: 4, TotalBytes: int64(len(longThenShort)), OutputLines: 3, OutputBytes: 23}},

		// OUT-17: bytes pass through unsanitised.
		{"NUL, ANSI and CR", "a\x00b\n\x1b[31mred\x1b[0m\r\n", Result{Content: "a\x00b\n\x1b[31mred\x1b[0m\r\n", TotalLines: 2, TotalBytes: 18, OutputLines: 2, OutputBytes: 18}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			want.MaxLines, want.MaxBytes = DefaultMaxLines, DefaultMaxBytes
			got := TruncateTail(tt.text, 0, 0)
			if got != want {
				t.Errorf("TruncateTail:\n got %s\nwant %s", describe(got), describe(want))
			}
		})
	}
}

// TestTruncateTailSmallLimits pins the walk's decisions with limits small
// enough to read.
func TestTruncateTailSmallLimits(t *testing.T) {
	tests := []struct {
		name               string
		text               string
		maxLines, maxBytes int
		want               Result
	}{
		{"lines limit first", "a\nb\nc\nd\n", 2, 100, Result{Content: "c\nd", Truncated: true, TruncatedBy: ByLines, TotalLines: 4, TotalBytes: 8, OutputLines: 2, OutputBytes: 3}},
		{"bytes limit first", "aaa\nbbb\nccc\n", 10, 8, Result{Content: "bbb\nccc", Truncated: true, TruncatedBy: ByBytes, TotalLines: 3, TotalBytes: 12, OutputLines: 2, OutputBytes: 7}},
		{"joining newline counts", "aaa\nbbbb\nc", 10, 9, Result{Content: "bbbb\nc", Truncated: true, TruncatedBy: ByBytes, TotalLines: 3, TotalBytes: 10, OutputLines: 2, OutputBytes: 6}},
		{"all lines fit once the trailing newline is dropped", "aaa\nbbbb\n", 10, 8, Result{Content: "aaa\nbbbb", Truncated: true, TruncatedBy: ByLines, TotalLines: 2, TotalBytes: 9, OutputLines: 2, OutputBytes: 8}},
		{"both limits met exactly", "ab\ncd\nef", 2, 5, Result{Content: "cd\nef", Truncated: true, TruncatedBy: ByLines, TotalLines: 3, TotalBytes: 8, OutputLines: 2, OutputBytes: 5}},
		// OUT-7: upstream reports "lines" when the line limit is reached
		// within the byte limit, even for a partial line.
		{"partial line under a one-line limit", "abcdef", 1, 4, Result{Content: "cdef", Truncated: true, TruncatedBy: ByLines, TotalLines: 1, TotalBytes: 6, OutputLines: 1, OutputBytes: 4, LastLinePartial: true}},
		// OUT-6: a character wider than the whole limit leaves nothing.
		{"character wider than the limit", "x😀", 5, 2, Result{Content: "", Truncated: true, TruncatedBy: ByBytes, TotalLines: 1, TotalBytes: 5, OutputLines: 1, OutputBytes: 0, LastLinePartial: true}},
		{"empty last line kept", "aaaaaaaa\n\n", 5, 4, Result{Content: "", Truncated: true, TruncatedBy: ByBytes, TotalLines: 2, TotalBytes: 10, OutputLines: 1, OutputBytes: 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			want.MaxLines, want.MaxBytes = tt.maxLines, tt.maxBytes
			if got := TruncateTail(tt.text, tt.maxLines, tt.maxBytes); got != want {
				t.Errorf("TruncateTail(%q, %d, %d):\n got %s\nwant %s", tt.text, tt.maxLines, tt.maxBytes, describe(got), describe(want))
			}
		})
	}
}

func TestTruncateTailDefaults(t *testing.T) {
	for _, limits := range [][2]int{{0, 0}, {-1, -5}} {
		got := TruncateTail("x", limits[0], limits[1])
		if got.MaxLines != DefaultMaxLines || got.MaxBytes != DefaultMaxBytes {
			t.Errorf("TruncateTail(_, %d, %d) applied %d lines, %d bytes; want the defaults",
				limits[0], limits[1], got.MaxLines, got.MaxBytes)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0B"},
		{1, "1B"},
		{1023, "1023B"},
		{1024, "1.0KB"},
		{1536, "1.5KB"},
		{51200, "50.0KB"},
		{51201, "50.0KB"},
		{102400, "100.0KB"},
		{1048575, "1024.0KB"},
		{1048576, "1.0MB"},
		{1572864, "1.5MB"},
		{1 << 30, "1024.0MB"},
	}
	for _, tt := range tests {
		if got := FormatSize(tt.n); got != tt.want {
			t.Errorf("FormatSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// describe prints a Result with its content shortened, so that failures on
// 50 KB texts stay readable.
func describe(r Result) string {
	c := r.Content
	if len(c) > 60 {
		c = c[:25] + "…(" + strconv.Itoa(len(c)) + " bytes)…" + c[len(c)-25:]
	}
	return strconv.Quote(c) + " " + sprintResult(r)
}

func sprintResult(r Result) string {
	return "truncated=" + strconv.FormatBool(r.Truncated) + " by=" + r.TruncatedBy +
		" total=" + strconv.Itoa(r.TotalLines) + "L/" + strconv.FormatInt(r.TotalBytes, 10) + "B" +
		" output=" + strconv.Itoa(r.OutputLines) + "L/" + strconv.Itoa(r.OutputBytes) + "B" +
		" partial=" + strconv.FormatBool(r.LastLinePartial) +
		" max=" + strconv.Itoa(r.MaxLines) + "L/" + strconv.Itoa(r.MaxBytes) + "B"
}
