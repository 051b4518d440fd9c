package background

import (
	"regexp"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/ref/output"
)

func TestFormatSeconds(t *testing.T) {
	// Expected values are JavaScript's (ms / 1000).toFixed(1).
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "0.0"},
		{-5, "0.0"}, // a clock step backwards never shows a sign
		{49, "0.0"},
		{50, "0.1"},  // 0.05 is 0.05000000000000000277…: up
		{150, "0.1"}, // 0.15 is 0.14999999999999999444…: down
		{250, "0.3"}, // an exact tie goes up (Go's strconv gives 0.2)
		{350, "0.3"}, // 0.35 is 0.34999999999999997779…: down
		{750, "0.8"}, // exact tie, up
		{999, "1.0"},
		{1050, "1.1"},
		{1250, "1.3"}, // exact tie, up (strconv: 1.2)
		{61000, "61.0"},
		{86_400_000, "86400.0"},
	}
	for _, tt := range tests {
		if got := FormatSeconds(time.Duration(tt.ms) * time.Millisecond); got != tt.want {
			t.Errorf("FormatSeconds(%d ms) = %q, want %q", tt.ms, got, tt.want)
		}
	}
	// Sub-millisecond parts are dropped, as Date.now() differences are whole.
	if got := FormatSeconds(249*time.Millisecond + 999*time.Microsecond); got != "0.2" {
		t.Errorf("FormatSeconds(249.999 ms) = %q, want 0.2", got)
	}
}

func TestNewHandle(t *testing.T) {
	uuid4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		h, err := newHandle()
		if err != nil {
			t.Fatal(err)
		}
		if !uuid4.MatchString(h) {
			t.Fatalf("handle %q is not a lower-case version 4 UUID", h)
		}
		if seen[h] {
			t.Fatalf("handle %q repeated", h)
		}
		seen[h] = true
	}
}

func TestTexts(t *testing.T) {
	const h = "0b9d7c1e-2f3a-4b5c-8d6e-7f8091a2b3c4"
	truncated := output.Snapshot{
		Result: output.Result{Content: "99\n100", Truncated: true, TruncatedBy: "bytes",
			TotalLines: 100, OutputLines: 2, LastLinePartial: false},
		FullOutputPath: "/tmp/f.log",
	}
	partial := output.Snapshot{
		Result:         output.Result{Content: "xxx", Truncated: true, TotalLines: 1, OutputLines: 1, LastLinePartial: true},
		FullOutputPath: "/tmp/g.log",
	}
	tests := []struct {
		name, got, want string
	}{
		{"running", runningHeader(h, 3250*time.Millisecond), "[background] " + h + ": running 3.3s"},
		{"exited", endedHeader(h, false, 3, 100*time.Millisecond), "[background] " + h + ": exited (code 3) after 0.1s"},
		{"killed", endedHeader(h, true, 137, 2*time.Second), "[background] " + h + ": killed (code 137) after 2.0s"},
		{"kill sent", killSent(h), "[background] " + h + ": kill signal sent"},
		{"already exited", alreadyExited(h, 0), "[background] " + h + ": already exited (code 0)"},
		{"no output", retrievalText("H", output.Snapshot{}), "H\n\n(no output)"},
		{"output kept whole", retrievalText("H", output.Snapshot{Result: output.Result{Content: "hi\n"}}), "H\n\nhi\n"},
		// BG-13: the by-lines footer whatever cut the output.
		{"bytes cut", retrievalText("H", truncated), "H\n\n99\n100\n\n[Showing lines 99-100 of 100. Full output: /tmp/f.log]"},
		{"partial line", retrievalText("H", partial), "H\n\nxxx\n\n[Showing lines 1-1 of 1. Full output: /tmp/g.log]"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestUnknownHandleText(t *testing.T) {
	r := New(Options{})
	if got, want := r.unknownHandle("x"), "Unknown background handle: x. No background commands have been launched."; got != want {
		t.Errorf("no launches: got %q, want %q", got, want)
	}
	r.order = []string{"b", "a", "c"} // launch order, not sorted
	if got, want := r.unknownHandle("x"), "Unknown background handle: x. Known handles: b, a, c"; got != want {
		t.Errorf("three launches: got %q, want %q", got, want)
	}
}
