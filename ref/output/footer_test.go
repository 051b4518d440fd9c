package output

import (
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	const p = "/tmp/apex-code-bash-0123456789abcdef.log"
	snap := func(text string, lastLine int64) Snapshot {
		return Snapshot{Result: TruncateTail(text, 0, 0), FullOutputPath: p, LastLineBytes: lastLine}
	}
	hundredK := strings.Repeat("x", 100*1024)
	tests := []struct {
		name      string
		s         Snapshot
		emptyText string
		want      string
	}{
		{"content as is", snap("hello\n", 0), "(no output)", "hello\n"},
		{"empty uses emptyText", snap("", 0), "(no output)", "(no output)"},
		{"empty with empty emptyText", snap("", 0), "", ""},
		// OUT-12.
		{"by lines", snap(numbered(2001, true), 0), "(no output)",
			linesFrom(2, 2001) + "\n\n[Showing lines 2-2001 of 2001. Full output: " + p + "]"},
		// OUT-13.
		{"by bytes", snap(strings.Repeat("L", 60000)+"\nshort 1\nshort 2\nshort 3\n", 0), "(no output)",
			"short 1\nshort 2\nshort 3\n\n[Showing lines 2-4 of 4 (50.0KB limit). Full output: " + p + "]"},
		// OUT-11.
		{"partial last line", snap(hundredK, 100*1024), "(no output)",
			hundredK[:51200] + "\n\n[Showing last 50.0KB of line 1 (line is 100.0KB). Full output: " + p + "]"},
		{"partial after other lines", snap("a\nb\n"+hundredK+"\n", 100*1024), "(no output)",
			hundredK[:51200] + "\n\n[Showing last 50.0KB of line 3 (line is 100.0KB). Full output: " + p + "]"},
		// OUT-7: the by-lines form where every line fitted.
		{"all lines fit without the trailing newline", snap(strings.Repeat("a", 51200)+"\n", 51200), "(no output)",
			strings.Repeat("a", 51200) + "\n\n[Showing lines 1-1 of 1. Full output: " + p + "]"},
		{"truncated to nothing", Snapshot{Result: TruncateTail("x😀", 5, 2), FullOutputPath: p, LastLineBytes: 5}, "",
			"\n\n[Showing last 0B of line 1 (line is 5B). Full output: " + p + "]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.Text(tt.emptyText); got != tt.want {
				t.Errorf("Text:\n got %q\nwant %q", shorten(got), shorten(tt.want))
			}
		})
	}
}

func TestLinesFooter(t *testing.T) {
	const p = "/tmp/f.log"
	tests := []struct {
		name string
		s    Snapshot
		want string
	}{
		{"not truncated", Snapshot{Result: TruncateTail("a\n", 0, 0), FullOutputPath: p}, ""},
		{"by lines", Snapshot{Result: TruncateTail(numbered(2500, false), 0, 0), FullOutputPath: p},
			"[Showing lines 501-2500 of 2500. Full output: " + p + "]"},
		// OUT-14: the by-lines form even when bytes or a partial line cut.
		{"by bytes", Snapshot{Result: TruncateTail(strings.Repeat("L", 60000)+"\ns\n", 0, 0), FullOutputPath: p},
			"[Showing lines 2-2 of 2. Full output: " + p + "]"},
		{"partial", Snapshot{Result: TruncateTail(strings.Repeat("L", 60000), 0, 0), FullOutputPath: p},
			"[Showing lines 1-1 of 1. Full output: " + p + "]"},
		// OUT-14, OUT-33, OUT-34: without a file, still a notice of the cut.
		{"no file", Snapshot{Result: TruncateTail(numbered(2500, false), 0, 0)},
			"[Showing lines 501-2500 of 2500. Full output could not be saved]"},
	}
	for _, tt := range tests {
		if got := tt.s.LinesFooter(); got != tt.want {
			t.Errorf("%s: LinesFooter = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func shorten(s string) string {
	if len(s) > 200 {
		return s[:60] + "…" + s[len(s)-120:]
	}
	return s
}

// TestFooterWithoutFile checks OUT-33: a truncated text whose file could not
// be saved ends every foreground footer with NoFullOutput, never with an
// empty path.
func TestFooterWithoutFile(t *testing.T) {
	tests := []struct {
		name string
		text string
		last int64
		want string
	}{
		{"by lines", numbered(2001, true), 0, "[Showing lines 2-2001 of 2001. Full output could not be saved]"},
		{"by bytes", strings.Repeat("L", 60000) + "\nshort\n", 0,
			"[Showing lines 2-2 of 2 (50.0KB limit). Full output could not be saved]"},
		{"partial", strings.Repeat("x", 102400), 102400,
			"[Showing last 50.0KB of line 1 (line is 100.0KB). Full output could not be saved]"},
	}
	for _, tt := range tests {
		s := Snapshot{Result: TruncateTail(tt.text, 0, 0), LastLineBytes: tt.last}
		if got := s.Footer(); got != tt.want {
			t.Errorf("%s: Footer = %q, want %q", tt.name, got, tt.want)
		}
		if got := s.Text(""); !strings.HasSuffix(got, "\n\n"+tt.want) {
			t.Errorf("%s: Text ends %q, want the footer after a blank line", tt.name, shorten(got))
		}
	}
}
