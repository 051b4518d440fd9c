package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Schema is a JSON Schema document, checked with the subset of JSON Schema
// (draft 2020-12) that spec/protocol.schema.json uses: $ref to local
// pointers, type, const, enum, properties, required, items, minItems,
// uniqueItems, minLength, minimum, anyOf, oneOf and allOf. Annotation
// keywords (title, description, default) are ignored; any other keyword
// makes [ParseSchema] fail, so the checker never silently under-checks a
// schema that grew.
//
// Beyond the standard, Validate reports members an object schema does not
// list as warnings: the protocol lets both sides ignore unknown members
// (PROTO-18), so an implementation that misspells one ("is_error") would
// otherwise pass unnoticed until a required member is found missing.
type Schema struct {
	root any
}

// schemaKeywords are the keywords the checker implements or may ignore.
var schemaKeywords = map[string]bool{
	"$schema": true, "$id": true, "$defs": true, "$ref": true, "$comment": true,
	"title": true, "description": true, "default": true, "examples": true,
	"type": true, "const": true, "enum": true, "properties": true, "required": true,
	"items": true, "minItems": true, "uniqueItems": true, "minLength": true, "minimum": true,
	"anyOf": true, "oneOf": true, "allOf": true,
}

// ParseSchema parses a schema and checks that it uses only keywords the
// checker implements.
func ParseSchema(data []byte) (*Schema, error) {
	root, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	if err := checkKeywords(root, "#"); err != nil {
		return nil, fmt.Errorf("parse schema: %w", err)
	}
	return &Schema{root: root}, nil
}

// decodeJSON decodes with numbers kept exact, so integer and number can be
// told apart.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func checkKeywords(node any, at string) error {
	m, ok := node.(map[string]any)
	if !ok {
		return nil
	}
	for k, v := range m {
		if !schemaKeywords[k] {
			return fmt.Errorf("%s: keyword %q is not supported by apexcheck's schema checker", at, k)
		}
		switch k {
		case "properties", "$defs":
			sub, _ := v.(map[string]any)
			for name, s := range sub {
				if err := checkKeywords(s, at+"/"+k+"/"+name); err != nil {
					return err
				}
			}
		case "items":
			if err := checkKeywords(v, at+"/items"); err != nil {
				return err
			}
		case "anyOf", "oneOf", "allOf":
			list, _ := v.([]any)
			for i, s := range list {
				if err := checkKeywords(s, fmt.Sprintf("%s/%s/%d", at, k, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// FieldError is one problem with one member of a message.
type FieldError struct {
	// Path locates the member: "$" is the message, "$.result.isError" a
	// member, "$.argv[1]" an array element.
	Path    string
	Message string
	// Warning marks what the protocol allows but is probably a mistake
	// (an unknown member).
	Warning bool
}

func (e FieldError) String() string {
	if e.Warning {
		return e.Path + ": warning: " + e.Message
	}
	return e.Path + ": " + e.Message
}

// ValidateJSON parses a message and validates it against the definition
// ref ("#/$defs/response").
func (s *Schema) ValidateJSON(ref string, data []byte) []FieldError {
	v, err := decodeJSON(data)
	if err != nil {
		return []FieldError{{Path: "$", Message: "not JSON: " + err.Error()}}
	}
	return s.Validate(ref, v)
}

// Validate validates a decoded value (as decodeJSON decodes it) against
// the definition ref.
func (s *Schema) Validate(ref string, v any) []FieldError {
	node, err := s.resolve(ref)
	if err != nil {
		return []FieldError{{Path: "$", Message: err.Error()}}
	}
	errs := s.check(node, v, "$")
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Path < errs[j].Path })
	return errs
}

// HasErrors reports whether errs holds anything but warnings.
func HasErrors(errs []FieldError) bool {
	for _, e := range errs {
		if !e.Warning {
			return true
		}
	}
	return false
}

func (s *Schema) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("schema: only local references are supported, not %q", ref)
	}
	node := s.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("schema: reference %q does not resolve", ref)
		}
		if node, ok = m[part]; !ok {
			return nil, fmt.Errorf("schema: reference %q does not resolve", ref)
		}
	}
	return node, nil
}

func (s *Schema) check(node, v any, path string) []FieldError {
	schema, ok := node.(map[string]any)
	if !ok {
		if b, isBool := node.(bool); isBool && !b {
			return []FieldError{{Path: path, Message: "no value is allowed here"}}
		}
		return nil
	}
	if ref, ok := schema["$ref"].(string); ok {
		target, err := s.resolve(ref)
		if err != nil {
			return []FieldError{{Path: path, Message: err.Error()}}
		}
		if errs := s.check(target, v, path); len(errs) > 0 {
			return errs
		}
	}
	var errs []FieldError
	add := func(format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
	}
	if t, ok := schema["type"]; ok {
		if !typeMatches(t, v) {
			add("is %s, want %s", describe(v), typeNames(t))
			return errs // further keywords would only repeat this
		}
	}
	if c, ok := schema["const"]; ok && !jsonEqual(c, v) {
		add("is %s, want %s", compact(v), compact(c))
	}
	if e, ok := schema["enum"].([]any); ok {
		found := false
		for _, x := range e {
			found = found || jsonEqual(x, v)
		}
		if !found {
			var opts []string
			for _, x := range e {
				opts = append(opts, compact(x))
			}
			add("is %s, want one of %s", compact(v), strings.Join(opts, ", "))
		}
	}
	if str, ok := v.(string); ok {
		if n, ok := number(schema["minLength"]); ok && float64(utf8.RuneCountInString(str)) < n {
			add("is %s, want at least %v characters", compact(v), n)
		}
	}
	if num, ok := v.(json.Number); ok {
		if min, ok := number(schema["minimum"]); ok {
			if f, err := num.Float64(); err == nil && f < min {
				add("is %s, want at least %v", num, min)
			}
		}
	}
	if arr, ok := v.([]any); ok {
		if n, ok := number(schema["minItems"]); ok && float64(len(arr)) < n {
			add("has %d items, want at least %v", len(arr), n)
		}
		if u, _ := schema["uniqueItems"].(bool); u {
			seen := map[string]int{}
			for i, x := range arr {
				k := compact(x)
				if j, dup := seen[k]; dup {
					add("items %d and %d are both %s, want unique items", j, i, k)
				}
				seen[k] = i
			}
		}
		if items, ok := schema["items"]; ok {
			for i, x := range arr {
				errs = append(errs, s.check(items, x, fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		errs = append(errs, s.checkObject(schema, obj, path)...)
	}
	if all, ok := schema["allOf"].([]any); ok {
		for _, sub := range all {
			errs = append(errs, s.check(sub, v, path)...)
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if list, ok := schema[k].([]any); ok {
			errs = append(errs, s.checkAlternatives(k, list, v, path)...)
		}
	}
	return errs
}

func (s *Schema) checkObject(schema, obj map[string]any, path string) []FieldError {
	var errs []FieldError
	props, hasProps := schema["properties"].(map[string]any)
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			name, _ := r.(string)
			if _, present := obj[name]; !present {
				errs = append(errs, FieldError{Path: memberPath(path, name), Message: "is missing (required)"})
			}
		}
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		sub, known := props[k]
		if known {
			errs = append(errs, s.check(sub, obj[k], memberPath(path, k))...)
			continue
		}
		if hasProps {
			msg := "unknown member (ignored by the runner)"
			if near := nearest(k, props); near != "" {
				msg += fmt.Sprintf("; did you mean %q?", near)
			}
			errs = append(errs, FieldError{Path: memberPath(path, k), Message: msg, Warning: true})
		}
	}
	return errs
}

// checkAlternatives checks anyOf and oneOf. When every alternative fixes
// the object's "type" member with a const (as the protocol's message
// unions do), the value's type selects the one alternative to check, so
// errors name fields instead of "matches none of 8 alternatives".
func (s *Schema) checkAlternatives(kind string, list []any, v any, path string) []FieldError {
	if obj, ok := v.(map[string]any); ok {
		if typ, ok := obj["type"].(string); ok {
			var known []string
			for _, alt := range list {
				c, ok := s.discriminator(alt)
				if !ok {
					known = nil
					break
				}
				known = append(known, c)
				if c == typ {
					return s.check(alt, v, path)
				}
			}
			if known != nil {
				return []FieldError{{Path: memberPath(path, "type"), Message: fmt.Sprintf("is %q, want one of %s", typ, strings.Join(quoteAll(known), ", "))}}
			}
		}
	}
	var best []FieldError
	matched := 0
	for i, alt := range list {
		errs := s.check(alt, v, path)
		if !HasErrors(errs) {
			matched++
			if best == nil || HasErrors(best) {
				best = errs
			}
			continue
		}
		if i == 0 || (HasErrors(best) && countErrors(errs) < countErrors(best)) {
			best = errs
		}
	}
	switch {
	case matched == 0:
		return append([]FieldError{{Path: path, Message: fmt.Sprintf("matches none of the %d alternatives (%s); the closest one fails with:", len(list), kind)}}, best...)
	case kind == "oneOf" && matched > 1:
		return []FieldError{{Path: path, Message: fmt.Sprintf("matches %d alternatives, want exactly one (oneOf)", matched)}}
	}
	return best
}

// discriminator returns the const of an alternative's "type" property,
// following $ref.
func (s *Schema) discriminator(alt any) (string, bool) {
	for range 8 {
		m, ok := alt.(map[string]any)
		if !ok {
			return "", false
		}
		if ref, ok := m["$ref"].(string); ok {
			target, err := s.resolve(ref)
			if err != nil {
				return "", false
			}
			alt = target
			continue
		}
		props, _ := m["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		c, ok := typ["const"].(string)
		return c, ok
	}
	return "", false
}

func countErrors(errs []FieldError) int {
	n := 0
	for _, e := range errs {
		if !e.Warning {
			n++
		}
	}
	return n
}

func memberPath(path, name string) string {
	for _, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return path + "[" + strconv.Quote(name) + "]"
		}
	}
	return path + "." + name
}

func typeMatches(t, v any) bool {
	switch t := t.(type) {
	case string:
		return isType(t, v)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && isType(s, v) {
				return true
			}
		}
	}
	return false
}

func isType(t string, v any) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(json.Number)
		return ok
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(n.String())
		return ok && r.IsInt()
	}
	return false
}

func typeNames(t any) string {
	switch t := t.(type) {
	case string:
		return t
	case []any:
		var names []string
		for _, x := range t {
			names = append(names, fmt.Sprint(x))
		}
		return strings.Join(names, " or ")
	}
	return fmt.Sprint(t)
}

// describe names a value's JSON type, with the value when it is short.
func describe(v any) string {
	kind := "object"
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		kind = "boolean"
	case string:
		kind = "string"
	case json.Number:
		kind = "number"
		if isType("integer", v) {
			kind = "integer"
		}
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return kind + " " + compact(v)
}

func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	s := strings.TrimSpace(b.String())
	if len(s) > 80 {
		s = s[:77] + "…"
	}
	return s
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil
}

// jsonEqual compares decoded JSON values, numbers by value (1 equals 1.0).
func jsonEqual(a, b any) bool {
	na, aok := a.(json.Number)
	nb, bok := b.(json.Number)
	if aok || bok {
		if !aok || !bok {
			return false
		}
		ra, ok1 := new(big.Rat).SetString(na.String())
		rb, ok2 := new(big.Rat).SetString(nb.String())
		return ok1 && ok2 && ra.Cmp(rb) == 0
	}
	switch a := a.(type) {
	case []any:
		bb, ok := b.([]any)
		if !ok || len(a) != len(bb) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], bb[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		bb, ok := b.(map[string]any)
		if !ok || len(a) != len(bb) {
			return false
		}
		for k, x := range a {
			y, ok := bb[k]
			if !ok || !jsonEqual(x, y) {
				return false
			}
		}
		return true
	}
	return a == b
}

// nearest returns the listed property closest to name (same letters
// ignoring case and separators, or at most two edits away), or "".
func nearest(name string, props map[string]any) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	best, bestD := "", 3
	for p := range props {
		d := editDistance(norm(name), norm(p))
		if d < bestD || (d == bestD && p < best) {
			best, bestD = p, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
