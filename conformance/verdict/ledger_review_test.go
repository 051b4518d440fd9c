package verdict

import (
	"errors"
	"strings"
	"testing"
)

func TestIsPlaceholder(t *testing.T) {
	tests := []struct {
		reason string
		want   bool
	}{
		{"TODO: review: FAIL: exec_c.txtar:3: text differs", true},
		{"todo", true},
		{"  TODO review", true},
		{"FIXME: why", true},
		{"TBD", true},
		{"XXX races", true},
		{"pi runs bash -c, not bash -lc", false},
		{"TODOS are not placeholders when they are words", false},
		{"the TODO list of upstream", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := IsPlaceholder(tt.reason); got != tt.want {
			t.Errorf("IsPlaceholder(%q) = %v, want %v", tt.reason, got, tt.want)
		}
	}
}

func TestCheckReviewed(t *testing.T) {
	l := &Ledger{Path: "expected.json", Expected: []Expectation{
		{Scenario: "exec_a", Reason: "pi runs bash -c"},
		{Scenario: "exec_b", Reason: "TODO: review: FAIL: exec_b.txtar:3"},
		{Scenario: "exec_c", Reason: "fixme"},
	}}
	err := l.CheckReviewed()
	if !errors.Is(err, ErrLedger) || !strings.Contains(err.Error(), "2 entries are not reviewed") || !strings.Contains(err.Error(), "exec_b, exec_c") {
		t.Errorf("CheckReviewed() = %v, want ErrLedger naming exec_b and exec_c", err)
	}
	l.Expected = l.Expected[:1]
	if err := l.CheckReviewed(); err != nil {
		t.Errorf("CheckReviewed() of a reviewed ledger = %v", err)
	}
}
