package client

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

type nopCloser struct{ bytes.Buffer }

func (*nopCloser) Close() error { return nil }

// TestTranscript: each line written to the implementation is one "send"
// entry however the writes split it, JSON is kept as JSON (compacted) and
// anything else as raw text.
func TestTranscript(t *testing.T) {
	var out bytes.Buffer
	tr := NewTranscript(&out)
	n := tr.begin([]string{"impl"}, []string{"HOME=/w/home"})
	stdin := &nopCloser{}
	s := &sendRecorder{WriteCloser: stdin, t: tr, impl: n}
	for _, w := range []string{`{"id":"r1",`, `"type":"hello"}` + "\n" + `not json` + "\n\n", `{ "type" : "x" }` + "\n"} {
		s.Write([]byte(w))
	}
	tr.record(n, TranscriptRecv, []byte(`{"id":"r1"}`+"\r\n"))
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var e TranscriptEntry
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got = append(got, e.Dir+" "+string(e.Msg)+e.Raw)
	}
	want := []string{"start ", `send {"id":"r1","type":"hello"}`, "send not json", `send {"type":"x"}`, `recv {"id":"r1"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(stdin.String(), "not json\n") {
		t.Errorf("the implementation did not get what was written: %q", stdin.String())
	}
}
