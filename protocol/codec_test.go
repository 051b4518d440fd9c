package protocol

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLineTooLong: a message over the limit is refused with its size and
// PROTO-1's limit, and the reader stays in step for the next message.
func TestLineTooLong(t *testing.T) {
	tests := []struct {
		name, input, want string
	}{
		{"whole line", strings.Repeat("x", MaxLine+10) + "\n{}\n", "protocol: message longer than the limit: 16777226 bytes, the limit is 16777216 bytes (16 MiB, PROTO-1)"},
		{"cut by the end of input", strings.Repeat("x", MaxLine+10), "protocol: message longer than the limit: at least 16777226 bytes, the limit is 16777216 bytes (16 MiB, PROTO-1)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewReader(strings.NewReader(tt.input))
			_, err := r.Line()
			if !errors.Is(err, ErrLineTooLong) || err.Error() != tt.want {
				t.Fatalf("Line() error %v, want %q wrapping ErrLineTooLong", err, tt.want)
			}
			line, err := r.Line()
			if strings.HasSuffix(tt.input, "\n{}\n") {
				if err != nil || string(line) != "{}" {
					t.Errorf("next Line() = %q, %v; want the next message", line, err)
				}
			} else if err != io.EOF {
				t.Errorf("next Line() = %q, %v; want io.EOF", line, err)
			}
		})
	}
}
