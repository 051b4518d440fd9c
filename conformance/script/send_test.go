package script

import "testing"

// TestLineID: send waits for the answer under the line's member named
// exactly "id"; an "ID" is not it (PROTO-20), and a repeated id is its last.
func TestLineID(t *testing.T) {
	for line, want := range map[string]string{
		`{"id":"a","type":"call"}`:  "a",
		`{"ID":"a","type":"call"}`:  "",
		`{"ID":"a","id":"b"}`:       "b",
		`{"id":"b","Id":"a"}`:       "b",
		`{"id":"a","id":"b"}`:       "b",
		`{"id":7}`:                  "",
		`{"id":null}`:               "",
		`this is not JSON`:          "",
		`["id","a"]`:                "",
		`{"id":"a"}` + "          ": "a",
	} {
		if got := lineID([]byte(line)); got != want {
			t.Errorf("lineID(%s) = %q, want %q", line, got, want)
		}
	}
}
