package tool

import "testing"

// TestRender checks the plain-text call header against the seed's
// formatShellCall and upstream render-utils str and invalidArgText
// (spec/display.md DISP-1 to DISP-6).
func TestRender(t *testing.T) {
	tests := []struct {
		args, want string
	}{
		// DISP-5: run.
		{`{"command":"ls -la"}`, "$ ls -la"},
		{`{"command":"make","timeout":600}`, "$ make (timeout 600s)"},
		{`{"command":"make","timeout":0.5}`, "$ make (timeout 0.5s)"},
		{`{"command":"make","timeout":0}`, "$ make"},  // JavaScript truthiness
		{`{"command":"make","timeout":-0}`, "$ make"}, // -0 is falsy too
		{`{"command":"make","timeout":1e-400}`, "$ make"},
		{`{"command":"make","timeout":-1}`, "$ make (timeout -1s)"},
		{`{"command":"make","timeout":1e21}`, "$ make (timeout 1e+21s)"},
		{`{"command":"make","timeout":1e-7}`, "$ make (timeout 1e-7s)"},
		{`{"command":"make","timeout":1e400}`, "$ make (timeout Infinitys)"},
		{`{"command":"make","timeout":"5"}`, "$ make"},
		{`{"command":"make","timeout":null}`, "$ make"},
		{`{"command":"npm start","background":true}`, "$ npm start"},
		{`{"command":"a\nb"}`, "$ a\nb"},
		{`{"command":"ls","handle":""}`, "$ ls"},
		{`{"command":"ls","handle":null,"kill":false}`, "$ ls"},
		{`{"command":"x","command":"y"}`, "$ y"}, // the last duplicate wins, as in JSON.parse
		// DISP-4: retrieve and kill.
		{`{"handle":"h1"}`, "$ h1"},
		{`{"handle":"h1","kill":true}`, "$ h1 · kill"},
		{`{"handle":"h1","kill":"yes"}`, "$ h1"},
		{`{"handle":"h1","command":""}`, "$ h1"},
		// DISP-3: rejected, naming no operation yet.
		{`{}`, "$ ..."},
		{`{"command":""}`, "$ ..."},
		{`{"handle":null}`, "$ ..."},
		{`{"handle":""}`, "$ ..."},
		{`{"kill":true}`, "$ ..."},
		{`{"timeout":5}`, "$ ..."},
		{`[]`, "$ ..."},
		{`["ls"]`, "$ ..."},
		{`"ls"`, "$ ..."},
		{`null`, "$ ..."},
		{`5`, "$ ..."},
		{`{"command":`, "$ ..."}, // not JSON (yet)
		// DISP-3: rejected, naming an operation.
		{`{"command":"a","handle":"b"}`, "$ [invalid arg]"},
		{`{"handle":"h","timeout":1}`, "$ [invalid arg]"},
		{`{"handle":"h","background":true}`, "$ [invalid arg]"},
		{`{"command":"ls","kill":true}`, "$ [invalid arg]"},
		// DISP-2: a field that str() rejects, whatever the parse says.
		{`{"command":5}`, "$ [invalid arg]"},
		{`{"command":["ls"]}`, "$ [invalid arg]"},
		{`{"command":true}`, "$ [invalid arg]"},
		{`{"handle":{}}`, "$ [invalid arg]"},
		{`{"command":"ls","handle":5}`, "$ [invalid arg]"}, // runs ls all the same
		{`{"handle":"h","command":0}`, "$ [invalid arg]"},
	}
	for _, tt := range tests {
		if got := Render([]byte(tt.args)); got != tt.want {
			t.Errorf("Render(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}
