package verdict

import (
	"fmt"
	"strings"
)

// placeholders are the words a reason starts with when nobody has
// reviewed it yet: DraftLedger writes "TODO: review: …", and people write
// the others.
var placeholders = []string{"TODO", "FIXME", "TBD", "XXX"}

// IsPlaceholder reports whether reason is a placeholder for a review, not
// a reason: it starts with TODO, FIXME, TBD or XXX, in any case.
func IsPlaceholder(reason string) bool {
	r := strings.ToUpper(strings.TrimSpace(reason))
	for _, p := range placeholders {
		if rest, ok := strings.CutPrefix(r, p); ok && (rest == "" || !isWordByte(rest[0])) {
			return true
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// CheckReviewed refuses a ledger with an entry whose reason is a
// placeholder (IsPlaceholder), such as the "TODO: review: …" that
// --write-expect drafts: a known failure accepted without a reason is a
// failure nobody looked at. The error names every such entry.
func (l *Ledger) CheckReviewed() error {
	var todo []string
	for _, e := range l.Expected {
		if IsPlaceholder(e.Reason) {
			todo = append(todo, e.Scenario)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	what := fmt.Sprintf("%d entries are", len(todo))
	if len(todo) == 1 {
		what = "1 entry is"
	}
	return fmt.Errorf("%w: %s: %s not reviewed (a placeholder reason such as \"TODO: review\"): %s; read each failure and write why it is expected",
		ErrLedger, l.Path, what, strings.Join(todo, ", "))
}
