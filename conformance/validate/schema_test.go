package validate

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/apexcheck/apexcheck"
)

func protocolSchema(t *testing.T) *Schema {
	t.Helper()
	data, err := fs.ReadFile(apexcheck.Spec, "protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSchema(data)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaAcceptsTheSpecExamples validates the complete exchange of
// spec/protocol.md, line by line.
func TestSchemaAcceptsTheSpecExamples(t *testing.T) {
	s := protocolSchema(t)
	data, err := fs.ReadFile(apexcheck.Spec, "protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		ref := ""
		switch {
		case strings.HasPrefix(line, "> {"):
			ref = "#/$defs/request"
		case strings.HasPrefix(line, "< {"):
			ref = "#/$defs/response"
		default:
			continue
		}
		msg := line[2:]
		if strings.Contains(msg, "frobnicate") {
			continue // the example of a request the schema rejects
		}
		n++
		if errs := s.ValidateJSON(ref, []byte(msg)); len(errs) > 0 {
			t.Errorf("%s\n%v", msg, errs)
		}
	}
	if n < 10 {
		t.Fatalf("found only %d example messages in spec/protocol.md", n)
	}
}

func TestSchemaFieldErrors(t *testing.T) {
	s := protocolSchema(t)
	tests := []struct {
		name, msg string
		want      []string // FieldError strings, in order
	}{
		{"valid result", `{"id":"r2","type":"result","result":{"isError":false,"text":"hi\n"}}`, nil},
		{"ill-typed", `{"id":"r2","type":"result","result":{"isError":"false","text":"hi"}}`,
			[]string{`$.result.isError: is string "false", want boolean`}},
		{"missing", `{"id":"r2","type":"result","result":{"isError":false}}`,
			[]string{`$.result.text: is missing (required)`}},
		{"misspelt", `{"id":"r2","type":"result","result":{"is_error":false,"text":""}}`,
			[]string{`$.result.isError: is missing (required)`, `$.result.is_error: warning: unknown member (ignored by the runner); did you mean "isError"?`}},
		{"exit code not integer", `{"id":"r","type":"result","result":{"isError":true,"text":"x","details":{"execution":{"cwd":"/","exitCode":1.5}}}}`,
			[]string{`$.result.details.execution.exitCode: is number 1.5, want integer or null`}},
		{"exit code null", `{"id":"r","type":"result","result":{"isError":true,"text":"x","details":{"execution":{"cwd":"/","exitCode":null}}}}`, nil},
		{"integer written as 3.0", `{"id":"r","type":"hello","protocol":1.0,"implementation":{"name":"n","version":"v","language":"l"}}`, nil},
		{"unknown type", `{"id":"r","type":"resutl","result":{"isError":false,"text":""}}`,
			[]string{`$.type: is "resutl", want one of "hello", "update", "result", "abort", "permission", "render", "shutdown", "error"`}},
		{"empty name", `{"id":"r","type":"hello","protocol":1,"implementation":{"name":"","version":"v","language":"l"}}`,
			[]string{`$.implementation.name: is "", want at least 1 characters`}},
		{"duplicate capability", `{"id":"r","type":"hello","protocol":1,"implementation":{"name":"n","version":"v","language":"l"},"capabilities":["abort","abort"]}`,
			[]string{`$.capabilities: items 0 and 1 are both "abort", want unique items`}},
		{"array element", `{"id":"r","type":"result","result":{"isError":true,"text":"x","details":{"execution":{"cwd":"/","exitCode":1,"argv":["-lc",2]}}}}`,
			[]string{`$.result.details.execution.argv[1]: is integer 2, want string`}},
		{"not an object", `[1]`, []string{`$: matches none of the 8 alternatives (oneOf); the closest one fails with:`, `$: is an array, want object`}},
		{"not JSON", `{"id":`, []string{`$: not JSON: unexpected EOF`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := s.ValidateJSON("#/$defs/response", []byte(tt.msg))
			var got []string
			for _, e := range errs {
				got = append(got, e.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("errors:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tt.want, "\n  "))
			}
		})
	}
}

func TestParseSchemaRejectsUnsupportedKeywords(t *testing.T) {
	for _, doc := range []string{
		`{"$defs":{"a":{"type":"string","pattern":"^x"}}}`,
		`{"properties":{"a":{"additionalProperties":false}}}`,
		`{"anyOf":[{"if":{}}]}`,
	} {
		if _, err := ParseSchema([]byte(doc)); err == nil || !strings.Contains(err.Error(), "not supported") {
			t.Errorf("ParseSchema(%s) = %v, want an unsupported-keyword error", doc, err)
		}
	}
}
