package loginpath

import (
	"errors"
	"strings"
	"testing"
)

func TestSelect(t *testing.T) {
	tests := []struct {
		name, stdout, want string
	}{
		{"path alone", "/a:/b", "/a:/b"},
		{"banner lines before", "Welcome\nLast login: today\n/a:/b", "/a:/b"},
		{"trailer line after", "/a:/b\nlogout\n", ""},
		{"trailer glued on", "/a:/b\nBYE", "BYE"},
		{"escape before, no line feed", "\x1b]0;title\a/a:/b", "\x1b]0;title\a/a:/b"},
		{"not trimmed", "x\n /a:/b \t", " /a:/b \t"},
		{"carriage return kept", "x\r\n/a\r", "/a\r"},
		{"empty", "", ""},
		{"only a line feed", "\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Select([]byte(tt.stdout))); got != tt.want {
				t.Errorf("Select(%q) = %q, want %q", tt.stdout, got, tt.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name      string
		candidate string
		want      error
	}{
		{"ordinary", "/usr/local/bin:/usr/bin:/bin", nil},
		{"spaces and non-ASCII are path bytes", "/Applications/My App/bin:/opt/ünï", nil},
		{"fish 2 style spaces", "/a /b /c", nil},
		{"relative entry", "BYE", nil},
		{"exactly the limit", strings.Repeat("/", MaxLen), nil},
		{"empty", "", ErrEmpty},
		{"one over the limit", strings.Repeat("/", MaxLen+1), ErrTooLong},
		{"NUL", "/a\x00/b", ErrControl},
		{"CR", "/a:/b\r", ErrControl},
		{"ESC", "\x1b[0m/a:/b", ErrControl},
		{"tab", "/a\t/b", ErrControl},
		{"bell", "/a\a", ErrControl},
		{"DEL", "/a\x7f", ErrControl},
		{"unit separator, the last C0", "/a\x1f", ErrControl},
		{"C1 first, U+0080", "/a\u0080/b", ErrControl},
		{"C1 NEL, U+0085", "/a\u0085", ErrControl},
		{"C1 CSI, U+009B", "\u009b0m/a", ErrControl},
		{"C1 last, U+009F", "/a\u009f", ErrControl},
		{"tilde, below DEL", "/a~", nil},
		{"NBSP, above C1", "/a\u00a0b", nil},
		{"letters whose UTF-8 holds 0x80 to 0x9F", "/À/Ÿ/ğ", nil},
		{"lone 0xC2 at the end", "/a\xc2", nil},
		{"lone 0x9B, not UTF-8", "/a\x9b", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check([]byte(tt.candidate))
			if tt.want == nil && err != nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("Check = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestCollector feeds stdout in awkward chunks and checks the collector
// keeps what Select on the whole stream would return, bounded.
func TestCollector(t *testing.T) {
	long := strings.Repeat("x", MaxLen+10)
	tests := []struct {
		name   string
		chunks []string
		want   string
		wantN  int
	}{
		{"one chunk", []string{"a\nb\n/p:/q"}, "/p:/q", 5},
		{"line feed in a later chunk", []string{"/p:", "/q\nr", "s"}, "rs", 2},
		{"ends with a line feed", []string{"/p\n"}, "", 0},
		{"candidate over the limit is capped", []string{"banner\n", long}, long[:MaxLen+1], MaxLen + 10},
		{"long banner, short candidate", []string{long, "\n/p"}, "/p", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &collector{}
			for _, ch := range tt.chunks {
				c.Write([]byte(ch))
			}
			got, n := c.candidate(nil)
			if string(got) != tt.want || n != tt.wantN {
				t.Errorf("candidate = %q (%d), want %q (%d)", got, n, tt.want, tt.wantN)
			}
			if all := strings.Join(tt.chunks, ""); len(all) <= RetainLimit {
				head, _ := c.candidate(func(b []byte) []byte { return b })
				if string(head) != all {
					t.Errorf("head = %q, want all of stdout", head)
				}
			}
		})
	}
}
