package script

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// toGeneric converts v to the generic JSON tree it encodes to.
func toGeneric(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, json.Unmarshal(data, &out)
}

// lookup follows a dot-separated path through a generic JSON tree.
func lookup(root any, path string) (any, bool) {
	cur := root
	for _, part := range strings.Split(path, ".") {
		switch node := cur.(type) {
		case map[string]any:
			v, ok := node[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(node) {
				return nil, false
			}
			cur = node[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// mustJSON encodes v canonically: compact, keys sorted, no HTML escaping.
func mustJSON(v any) string {
	g, err := toGeneric(v)
	if err != nil {
		return "<unencodable: " + err.Error() + ">"
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(g)
	return strings.TrimSuffix(b.String(), "\n")
}

type regexpMatcher struct{ re *regexp.Regexp }

func newRegexpMatcher(ts *testscript.TestScript, expr string) *regexpMatcher {
	re, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		ts.Fatalf("bad regexp %q: %v", expr, err)
	}
	return &regexpMatcher{re: re}
}

func (m *regexpMatcher) match(data []byte) bool { return m.re.Match(data) }
