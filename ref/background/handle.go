package background

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// newHandle returns a random version 4 UUID in lower-case canonical form,
// as JavaScript's crypto.randomUUID does (BG-2). 122 random bits make a
// collision within one session negligible, and a handle is unguessable, so
// a model cannot address a command it was never told about.
func newHandle() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("new background handle: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40 // version 4
	b[8] = b[8]&0x3f | 0x80 // RFC 4122 variant
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32], nil
}
