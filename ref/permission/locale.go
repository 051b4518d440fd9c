package permission

import "strings"

// The grammar reads a command as UTF-8, or as bytes (ASCII bytes are the
// only ones special to bash, and every byte of a UTF-8 character outside
// ASCII is 0x80 or above). bash reads it in the locale its rc files set,
// and two of glibc's locale families read the same bytes differently
// (PERM-50, PERM-51). The tables below are glibc 2.36's decoders, as
// bash's parser calls them (mbrlen, in parse.y's set_line_mbstate): a byte
// whose prefix mbrlen calls incomplete or completes into one character is
// not special to the parser, whatever it is. testdata/locales.md has the
// derivation, and TestLocaleTables checks the tables against the installed
// glibc.

// localeTrail marks the ASCII bytes special to bash that a double-byte
// charset of glibc takes as the second byte of a character after a byte
// from 0x81 to 0xFE: 0x40 to 0x7E for BIG5, BIG5-HKSCS, GBK, GB18030,
// SHIFT_JIS and WINDOWS-31J, and 0x31 to 0x7E for JOHAB. Letters, digits,
// `_` and the punctuation bash gives no meaning (`= : , . / - +` and `%`)
// are left out: swallowing one changes no token.
var localeTrail = asciiSet(";<>?@[\\]^`{|}~")

// localeSpecial marks every ASCII byte bash gives a meaning outside a word
// or inside one: blanks and newline, the operators, quotes and escapes,
// expansion, comment, glob, brace and tilde characters. glibc's GB18030
// and EUC-TW decoders call a four-byte form incomplete after its second
// byte whatever the third is, so any of these can be swallowed there.
var localeSpecial = asciiSet(" \t\n!\"#$&'()*;<>?@[\\]^`{|}~")

func asciiSet(s string) (set [128]bool) {
	for i := 0; i < len(s); i++ {
		set[s[i]] = true
	}
	return set
}

// localeHazard reports whether the byte at i of command, an ASCII byte
// after at least one byte, may be read by bash as part of a multibyte
// character under some locale glibc builds (PERM-50): it follows a byte
// from 0x81 up and is a trail byte of a double-byte charset; or it is the
// third byte of a four-byte form glibc reads as incomplete: a byte from
// 0x81 up then a digit (GB18030), or 0x8E then 0xA1 to 0xB0 (EUC-TW). The
// spec's upper bound, 0xFE, is no bound here: scanText has checked the
// bytes before i as UTF-8, whose bytes stop at 0xF4.
func localeHazard(command string, i int) bool {
	b, p1 := command[i], command[i-1]
	if p1 >= 0x81 && localeTrail[b] {
		return true
	}
	if i < 2 || !localeSpecial[b] {
		return false
	}
	p2 := command[i-2]
	return (p2 >= 0x81 && p1 >= '0' && p1 <= '9') || (p2 == 0x8E && p1 >= 0xA1 && p1 <= 0xB0)
}

// localeAssignment reports whether a command word may be an assignment to
// bash in a single-byte locale (PERM-51): bash's assignment test takes any
// byte isalpha accepts as a letter of a name, and in ISO-8859-1, KOI8-R,
// SHIFT_JIS and the rest some bytes of 0x80 and above are letters, so
// `ª=1 rm x` runs rm there while UTF-8 reads `ª=1` as the command word.
func localeAssignment(word string) bool {
	eq := strings.IndexByte(word, '=')
	if eq < 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		if word[i] >= 0x80 {
			return true
		}
	}
	return false
}
