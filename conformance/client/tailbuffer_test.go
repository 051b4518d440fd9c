package client

import "testing"

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 4}
	b.Write([]byte("abc"))
	b.Write([]byte("def"))
	if b.String() != "cdef" {
		t.Fatalf("tail = %q", b.String())
	}
}
