package stress

import (
	"testing"

	"github.com/apexcheck/apexcheck/protocol"
)

// TestReadRequestExactNames: the minimal implementation reads a request's
// members by their exact names (PROTO-20): "TYPE":"shutdown" does not shut
// it down, and "ID" is not the id.
func TestReadRequestExactNames(t *testing.T) {
	req, err := readRequest([]byte(`{"ID":"x","id":"r2","TYPE":"shutdown","type":"call"}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.Type != protocol.TypeCall || req.ID != "r2" {
		t.Errorf("read type %q id %q, want call r2", req.Type, req.ID)
	}
	req, err = readRequest([]byte(`{"id":"r3","TYPE":"shutdown"}`))
	if err != nil {
		t.Fatal(err)
	}
	if req.Type != "" {
		t.Errorf("read TYPE as the type: %q", req.Type)
	}
}
