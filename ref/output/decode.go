package output

import (
	"encoding/binary"
	"unicode/utf8"
)

// replacement is U+FFFD, what every ill-formed sequence decodes to.
var replacement = []byte("\uFFFD")

// utf8Decoder is a streaming UTF-8 decoder with the replacement behaviour of
// the WHATWG Encoding Standard's UTF-8 decoder, which is what apex-code's
// TextDecoder applies (OUT-15): each maximal subpart of an ill-formed
// sequence becomes one U+FFFD, and a sequence split across writes decodes as
// if it had arrived whole.
//
// Valid runs are passed to emit as sub-slices of the input, without copying;
// emit must not keep them.
type utf8Decoder struct {
	need, seen   int // continuation bytes needed and seen for the pending sequence
	lower, upper byte
	pending      [4]byte
}

// decode feeds p and passes the decoded text to emit in order, each piece a
// run of whole characters.
func (d *utf8Decoder) decode(p []byte, emit func([]byte)) {
	i := 0
	fast := true
	for i < len(p) {
		if d.need == 0 {
			if fast {
				// Once per write, try the whole rest at once: output is
				// nearly always valid, and a write boundary often splits
				// only the last character. Once only, so that binary
				// output cannot make the check quadratic.
				fast = false
				rest := p[i:]
				cut := completeLen(rest)
				if cut > 0 && utf8.Valid(rest[:cut]) {
					emit(rest[:cut])
					i += cut
					continue
				}
			}
			if n := validPrefix(p[i:]); n > 0 {
				emit(p[i : i+n])
				i += n
				continue
			}
			d.lead(p[i], emit)
			i++
			continue
		}
		b := p[i]
		if b < d.lower || b > d.upper {
			// The pending bytes are a maximal subpart: one U+FFFD, and b is
			// decoded afresh.
			d.need, d.seen = 0, 0
			emit(replacement)
			continue
		}
		d.lower, d.upper = 0x80, 0xBF
		d.seen++
		d.pending[d.seen] = b
		i++
		if d.seen == d.need {
			n := d.need + 1
			d.need, d.seen = 0, 0
			emit(d.pending[:n])
		}
	}
}

// lead starts a sequence at byte b, or emits it when it stands alone.
func (d *utf8Decoder) lead(b byte, emit func([]byte)) {
	d.lower, d.upper = 0x80, 0xBF
	switch {
	case b < 0x80:
		d.pending[0] = b
		emit(d.pending[:1])
		return
	case b >= 0xC2 && b <= 0xDF:
		d.need = 1
	case b >= 0xE0 && b <= 0xEF:
		if b == 0xE0 {
			d.lower = 0xA0 // no overlong forms
		}
		if b == 0xED {
			d.upper = 0x9F // no surrogates
		}
		d.need = 2
	case b >= 0xF0 && b <= 0xF4:
		if b == 0xF0 {
			d.lower = 0x90 // no overlong forms
		}
		if b == 0xF4 {
			d.upper = 0x8F // nothing above U+10FFFF
		}
		d.need = 3
	default:
		emit(replacement)
		return
	}
	d.pending[0] = b
	d.seen = 0
}

// flush ends the stream: an incomplete pending sequence becomes one U+FFFD.
func (d *utf8Decoder) flush(emit func([]byte)) {
	if d.need != 0 {
		d.need, d.seen = 0, 0
		emit(replacement)
	}
}

// completeLen returns len(p) unless p ends in the lead of a character whose
// remaining bytes have not arrived, in which case it returns where that
// character starts.
func completeLen(p []byte) int {
	n := len(p)
	k := n - 1
	for k > 0 && n-k < utf8.UTFMax && p[k]&0xC0 == 0x80 {
		k--
	}
	if k < 0 || utf8.FullRune(p[k:]) {
		return n
	}
	return k
}

// validPrefix returns the length of the longest prefix of p made of whole,
// well-formed characters.
func validPrefix(p []byte) int {
	i := 0
	for i < len(p) {
		for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
			i += 8
		}
		if i == len(p) {
			break
		}
		if p[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return i
}
