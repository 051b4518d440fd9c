package output

import (
	"bytes"
	"testing"
)

// decodeAll runs the streaming decoder over chunks and flushes it.
func decodeAll(chunks ...[]byte) []byte {
	var d utf8Decoder
	var out []byte
	emit := func(p []byte) { out = append(out, p...) }
	for _, c := range chunks {
		d.decode(c, emit)
	}
	d.flush(emit)
	return out
}

// refDecode is the WHATWG Encoding Standard's UTF-8 decoder written out one
// byte at a time, with none of utf8Decoder's shortcuts: the oracle the tests
// and fuzz targets compare against.
func refDecode(in []byte) []byte {
	var out []byte
	var cp rune
	need, seen := 0, 0
	lower, upper := byte(0x80), byte(0xBF)
	for i := 0; i < len(in); {
		b := in[i]
		if need == 0 {
			i++
			switch {
			case b <= 0x7F:
				out = append(out, b)
			case b >= 0xC2 && b <= 0xDF:
				need, cp = 1, rune(b&0x1F)
			case b >= 0xE0 && b <= 0xEF:
				if b == 0xE0 {
					lower = 0xA0
				}
				if b == 0xED {
					upper = 0x9F
				}
				need, cp = 2, rune(b&0xF)
			case b >= 0xF0 && b <= 0xF4:
				if b == 0xF0 {
					lower = 0x90
				}
				if b == 0xF4 {
					upper = 0x8F
				}
				need, cp = 3, rune(b&0x7)
			default:
				out = append(out, "\uFFFD"...)
			}
			continue
		}
		if b < lower || b > upper {
			cp, need, seen = 0, 0, 0
			lower, upper = 0x80, 0xBF
			out = append(out, "\uFFFD"...) // b is not consumed: it is decoded again
			continue
		}
		i++
		lower, upper = 0x80, 0xBF
		cp = cp<<6 | rune(b&0x3F)
		seen++
		if seen == need {
			out = append(out, string(cp)...)
			cp, need, seen = 0, 0, 0
		}
	}
	if need != 0 {
		out = append(out, "\uFFFD"...)
	}
	return out
}

func TestDecode(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"ascii", "abc\n", "abc\n"},
		{"valid multi-byte", "é€😀", "é€😀"},
		{"U+FFFD itself", "\uFFFD", "\uFFFD"},
		{"NUL", "a\x00b", "a\x00b"},
		{"stray continuation", "\x80", r},
		{"invalid byte", "\xff", r},
		{"truncated 3-byte sequence then ascii", "\xe2\x82A", r + "A"},
		{"truncated 4-byte sequence then ascii", "\xf0\x9f\x98x", r + "x"},
		{"truncated sequence at the end", "a\xe2\x82", "a" + r},
		{"overlong 2-byte", "\xc0\xaf", r + r},
		{"overlong 3-byte", "\xe0\x80\xaf", r + r + r},
		{"surrogate", "\xed\xa0\x80", r + r + r},
		{"above U+10FFFF", "\xf4\x90\x80\x80", r + r + r + r},
		// Unicode 15 §3.9, Table 3-8 (U+FFFD for maximal subparts).
		{"Unicode table 3-8", "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "a" + r + r + r + "b" + r + "c" + r + r + "d"},
		{"invalid then newline", "\xe2\n", r + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(refDecode([]byte(tt.in))); got != tt.want {
				t.Fatalf("reference decoder: got %q, want %q", got, tt.want)
			}
			if got := string(decodeAll([]byte(tt.in))); got != tt.want {
				t.Errorf("one write: got %q, want %q", got, tt.want)
			}
			// Every way of splitting the input in two, and byte by byte.
			for i := 0; i <= len(tt.in); i++ {
				if got := string(decodeAll([]byte(tt.in[:i]), []byte(tt.in[i:]))); got != tt.want {
					t.Errorf("split at %d: got %q, want %q", i, got, tt.want)
				}
			}
			var single [][]byte
			for i := range len(tt.in) {
				single = append(single, []byte{tt.in[i]})
			}
			if got := string(decodeAll(single...)); got != tt.want {
				t.Errorf("byte by byte: got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDecodeLargeMixed runs the fast paths over long valid runs broken by
// invalid bytes and split characters.
func TestDecodeLargeMixed(t *testing.T) {
	var in []byte
	for i := range 2000 {
		in = append(in, "text 😀 €\n"...)
		if i%97 == 0 {
			in = append(in, 0xff, 0xe2, 0x82)
		}
	}
	want := refDecode(in)
	for _, size := range []int{1, 2, 3, 5, 64, 4093, 65536} {
		var chunks [][]byte
		for i := 0; i < len(in); i += size {
			chunks = append(chunks, in[i:min(i+size, len(in))])
		}
		if got := decodeAll(chunks...); !bytes.Equal(got, want) {
			t.Errorf("chunks of %d: decoded text differs from the reference", size)
		}
	}
}
