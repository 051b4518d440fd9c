package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// charset is a model of one glibc decoder, written from the ranges of
// testdata/locales.md and independent of localeHazard: decode returns what
// mbrlen returns for the bytes since the last character boundary (-2
// incomplete, -1 invalid, else the length of a complete character).
type charset struct {
	name   string
	decode func(p []byte) int
}

func in(b byte, ranges ...byte) bool {
	for i := 0; i < len(ranges); i += 2 {
		if b >= ranges[i] && b <= ranges[i+1] {
			return true
		}
	}
	return false
}

// doubleByte models a charset of one- and two-byte characters.
func doubleByte(name string, lead, trail []byte) charset {
	return charset{name, func(p []byte) int {
		switch {
		case len(p) == 1 && p[0] < 0x80:
			return 1
		case len(p) == 1 && in(p[0], lead...):
			return -2
		case len(p) == 2 && in(p[1], trail...):
			return 2
		}
		return -1
	}}
}

// modelCharsets are the charsets PERM-50 is derived from. The two-byte
// ranges include every pair glibc might accept (holes in the tables only
// make the real decoder swallow less); GB18030's and EUC-TW's four-byte
// forms are incomplete after two bytes whatever the third, as glibc's are.
var modelCharsets = []charset{
	doubleByte("BIG5", []byte{0xA1, 0xF9}, []byte{0x40, 0x7E, 0xA1, 0xFE}),
	doubleByte("BIG5-HKSCS", []byte{0x81, 0xFE}, []byte{0x40, 0x7E, 0xA1, 0xFE}),
	doubleByte("GBK", []byte{0x81, 0xFE}, []byte{0x40, 0x7E, 0x80, 0xFE}),
	doubleByte("SHIFT_JIS", []byte{0x81, 0x9F, 0xE0, 0xFC}, []byte{0x40, 0x7E, 0x80, 0xFC}),
	doubleByte("JOHAB", []byte{0x84, 0xD3, 0xD8, 0xDE, 0xE0, 0xF9}, []byte{0x31, 0x7E, 0x81, 0xFE}),
	{"GB18030", func(p []byte) int {
		switch {
		case len(p) == 1 && p[0] < 0x80:
			return 1
		case len(p) == 1 && in(p[0], 0x81, 0xFE):
			return -2
		case len(p) == 2 && in(p[1], 0x40, 0x7E, 0x80, 0xFE):
			return 2
		case len(p) == 2 && in(p[1], 0x30, 0x39), len(p) == 3:
			return -2
		case len(p) == 4 && in(p[3], 0x30, 0x39) && in(p[2], 0x81, 0xFE):
			return 4
		}
		return -1
	}},
	{"EUC-TW", func(p []byte) int {
		switch {
		case len(p) == 1 && p[0] < 0x80:
			return 1
		case len(p) == 1 && in(p[0], 0x8E, 0x8E, 0xA1, 0xFE):
			return -2
		case len(p) == 2 && p[0] != 0x8E && in(p[1], 0xA1, 0xFE):
			return 2
		case len(p) == 2 && p[0] == 0x8E && in(p[1], 0xA1, 0xB0), len(p) == 3:
			return -2
		case len(p) == 4 && in(p[2], 0xA1, 0xFE) && in(p[3], 0xA1, 0xFE):
			return 4
		}
		return -1
	}},
}

// swallowed returns the offsets of the ASCII bytes of command that bash's
// parser, in a locale of charset cs, reads as part of a multibyte
// character: parse.y's set_line_mbstate, line by line.
func (cs charset) swallowed(command string) []int {
	var out []int
	previ := 0
	for i := 0; i < len(command); i++ {
		n := cs.decode([]byte(command[previ : i+1]))
		switch {
		case n == 1 || n == -1:
			previ = i + 1
		case n == -2:
			if command[i] < 0x80 {
				out = append(out, i)
			}
		default:
			if command[i] < 0x80 {
				out = append(out, i)
			}
			previ = i + 1
		}
		if command[i] == '\n' {
			previ = i + 1 // bash decodes each line afresh
		}
	}
	return out
}

// localeOracle is the locale half of PERM-32's oracle, independent of
// localeHazard: for a command that classifies, no modelled charset may
// read into a character a byte bash gives a meaning, unless the byte lies
// strictly inside a single-quoted string (found from a fresh parse); and
// no command word may hold a byte from 0x80 up before an `=` (PERM-51).
func localeOracle(command string, f *syntax.File) error {
	type span struct{ left, right int }
	var quoted []span
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.SglQuoted:
			quoted = append(quoted, span{int(n.Left.Offset()), int(n.Right.Offset())})
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				if w := n.Args[0].Lit(); strings.Contains(w, "=") && strings.IndexFunc(w[:strings.IndexByte(w, '=')], func(r rune) bool { return r >= 0x80 }) >= 0 {
					quoted = append(quoted, span{-2, -2}) // marks PERM-51
				}
			}
		}
		return true
	})
	for _, q := range quoted {
		if q.left == -2 {
			return fmt.Errorf("a command word a single-byte locale reads as an assignment classified")
		}
	}
	for _, cs := range modelCharsets {
	next:
		for _, p := range cs.swallowed(command) {
			b := command[p]
			if !strings.ContainsRune(" \t\n!\"#$&'()*;<>?@[\\]^`{|}~", rune(b)) {
				continue
			}
			for _, q := range quoted {
				if q.left < p && p < q.right {
					continue next
				}
			}
			return fmt.Errorf("classified, yet %s reads %q at %d into a character", cs.name, b, p)
		}
	}
	return nil
}
