package client

import (
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"github.com/apexcheck/apexcheck/protocol"
)

// miscased lists the members of the message line whose names differ only
// in case from a member of a protocol response, at any depth, when the
// exact name is absent: "TYPE, not type", "result.IsError, not
// result.isError". The client reads members by their exact names
// (PROTO-20), so such a member is ignored; these name it when the message
// is refused or a scenario fails for want of the real member, so that the
// implementation, not the runner, is seen to be at fault.
func miscased(line []byte) []string {
	var out []string
	walkMiscased(line, reflect.TypeFor[protocol.Response](), "", &out)
	sort.Strings(out)
	return out
}

func walkMiscased(raw []byte, t reflect.Type, path string, out *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		if t.Kind() == reflect.Slice {
			var elems []json.RawMessage
			if json.Unmarshal(raw, &elems) != nil {
				return
			}
			for _, e := range elems {
				walkMiscased(e, t.Elem(), path, out)
			}
			return
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	m, err := protocol.Members(raw)
	if err != nil {
		return
	}
	fields := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || name == "" {
			continue
		}
		fields[name] = f.Type
	}
	for k, v := range m {
		if ft, ok := fields[k]; ok {
			walkMiscased(v, ft, join(path, k), out)
			continue
		}
		for name := range fields {
			if _, given := m[name]; !given && strings.EqualFold(k, name) {
				*out = append(*out, join(path, k)+", not "+join(path, name))
			}
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// withMiscased is miscased(line) as words to follow "the implementation
// sent …": " with member TYPE, not type (member names are exact,
// PROTO-20)", or "" when the message has no miscased member.
func withMiscased(line []byte) string {
	ms := miscased(line)
	if len(ms) == 0 {
		return ""
	}
	return " with member " + strings.Join(ms, ", member ") + " (member names are exact, PROTO-20)"
}
