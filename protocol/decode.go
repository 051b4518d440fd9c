package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Unmarshal decodes the JSON value data into v, a non-nil pointer, reading
// member names as JavaScript's JSON.parse does (PROTO-20, PROTO-21,
// CALL-11), which encoding/json does not:
//
//   - A member name matches a field's JSON name exactly. "TYPE" or
//     "Arguments" is an unknown member, ignored (PROTO-18), never the
//     "type" or "arguments" it resembles; encoding/json matches names
//     case-insensitively.
//   - A member given more than once takes its last value, whole: an object
//     given twice is the last object, not the two merged, as encoding/json
//     merges them into a struct, a map or a non-nil pointer.
//
// Values that are not objects (strings, numbers, json.RawMessage) are
// decoded by encoding/json, so their types and errors are its own. A
// member of the wrong type is an error naming the member.
func Unmarshal(data []byte, v any) error {
	return unmarshal(data, v, false)
}

// UnmarshalKnown is Unmarshal that also rejects members v does not define,
// for files people write (an adapter's mapping), where a misspelt or
// miscased name must not be silently ignored.
func UnmarshalKnown(data []byte, v any) error {
	return unmarshal(data, v, true)
}

func unmarshal(data []byte, v any, known bool) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("protocol: decode: want a non-nil pointer, got %T", v)
	}
	if !json.Valid(data) {
		// encoding/json's error says where the syntax breaks.
		var x any
		err := json.Unmarshal(data, &x)
		return fmt.Errorf("protocol: decode: %w", err)
	}
	d := decoder{known: known}
	if err := d.value(data, rv.Elem(), ""); err != nil {
		return fmt.Errorf("protocol: decode: %w", err)
	}
	return nil
}

// Members returns the members of the JSON object raw by their exact names,
// the last occurrence of a name giving its value (JSON.parse semantics,
// CALL-11). It fails when raw is not a JSON object. Tool arguments and
// anything else read as an untyped object are read through it.
func Members(raw []byte) (map[string]json.RawMessage, error) {
	if !json.Valid(raw) {
		return nil, errors.New("protocol: members: not valid JSON")
	}
	return members(raw)
}

// members decodes a JSON value already known to be valid. encoding/json
// keeps map keys as written and stores each member anew, so a repeated
// name ends with its last value.
func members(raw []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, errors.New("protocol: members: not a JSON object")
	}
	return m, nil
}

type decoder struct {
	known bool // reject unknown members
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// value decodes valid JSON raw into rv. path names the member for errors.
func (d decoder) value(raw []byte, rv reflect.Value, path string) error {
	t := rv.Type()
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return d.leaf(raw, rv, path)
	}
	null := string(raw) == "null"
	switch t.Kind() {
	case reflect.Pointer:
		if null {
			rv.SetZero()
			return nil
		}
		// A fresh value every time: a repeated member replaces, never
		// merges into, what an earlier occurrence decoded.
		p := reflect.New(t.Elem())
		if err := d.value(raw, p.Elem(), path); err != nil {
			return err
		}
		rv.Set(p)
		return nil
	case reflect.Struct:
		if null {
			return nil // as encoding/json: null leaves a struct alone
		}
		return d.object(raw, rv, path)
	case reflect.Map:
		if null {
			rv.SetZero()
			return nil
		}
		if t.Key().Kind() != reflect.String {
			return d.leaf(raw, rv, path)
		}
		m, err := members(raw)
		if err != nil {
			return d.leaf(raw, rv, path) // encoding/json's type error
		}
		out := reflect.MakeMapWithSize(t, len(m))
		for k, v := range m {
			e := reflect.New(t.Elem()).Elem()
			if err := d.value(v, e, join(path, k)); err != nil {
				return err
			}
			out.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), e)
		}
		rv.Set(out)
		return nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 || !needsWalk(t.Elem()) {
			return d.leaf(raw, rv, path)
		}
		if null {
			rv.SetZero()
			return nil
		}
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return d.leaf(raw, rv, path)
		}
		out := reflect.MakeSlice(t, len(elems), len(elems))
		for i, e := range elems {
			if err := d.value(e, out.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		rv.Set(out)
		return nil
	}
	return d.leaf(raw, rv, path)
}

// leaf decodes a value whose type holds no struct or map with named
// members, with encoding/json.
func (d decoder) leaf(raw []byte, rv reflect.Value, path string) error {
	if err := json.Unmarshal(raw, rv.Addr().Interface()); err != nil {
		if path == "" {
			return err
		}
		return fmt.Errorf("member %q: %w", path, err)
	}
	return nil
}

// object decodes a JSON object into the struct rv, field by field, each
// from the member of exactly its name.
func (d decoder) object(raw []byte, rv reflect.Value, path string) error {
	m, err := members(raw)
	if err != nil {
		return d.leaf(raw, rv, path) // encoding/json's type error
	}
	fields := fieldsOf(rv.Type())
	for name, index := range fields {
		v, ok := m[name]
		if !ok {
			continue
		}
		if err := d.value(v, rv.Field(index), join(path, name)); err != nil {
			return err
		}
	}
	if d.known {
		for name := range m {
			if _, ok := fields[name]; !ok {
				return fmt.Errorf("unknown member %q", join(path, name))
			}
		}
	}
	return nil
}

// fieldsOf maps the JSON names of t's exported fields to their indexes. A
// field without a json tag is named by its Go name, matched exactly; an
// embedded struct is one field, its members not promoted (no message type
// embeds one).
func fieldsOf(t reflect.Type) map[string]int {
	fields := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		fields[name] = i
	}
	return fields
}

// needsWalk reports whether decoding t involves member names: a struct or
// a map, possibly behind pointers or slices. (An untyped value, any, is
// decoded by encoding/json into maps, whose keys are exact and whose
// repeated keys keep their last value.)
func needsWalk(t reflect.Type) bool {
	for {
		if reflect.PointerTo(t).Implements(unmarshalerType) {
			return false
		}
		switch t.Kind() {
		case reflect.Struct, reflect.Map:
			return true
		case reflect.Pointer, reflect.Slice:
			t = t.Elem()
		default:
			return false
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
