package suite

import "testing"

func TestTotalsNeverCountSkipsAsPasses(t *testing.T) {
	tests := []struct {
		name    string
		outs    []Outcome
		percent int
		ran     int
	}{
		{"all skipped", []Outcome{Skipped, Skipped}, 0, 0},
		{"one passed, many skipped", []Outcome{Passed, Skipped, Skipped, Skipped}, 100, 1},
		{"half failed", []Outcome{Passed, Failed, Skipped}, 50, 2},
		{"errored counts as run", []Outcome{Passed, Passed, Errored}, 66, 3},
		{"inconclusive is neither pass nor failure", []Outcome{Passed, Inconclusive, Failed}, 50, 2},
		{"all inconclusive", []Outcome{Inconclusive}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tot Totals
			for _, o := range tt.outs {
				tot.Add(o)
			}
			if tot.PassPercent() != tt.percent || tot.Ran() != tt.ran || tot.Total() != len(tt.outs) {
				t.Errorf("percent %d ran %d total %d, want %d %d %d", tot.PassPercent(), tot.Ran(), tot.Total(), tt.percent, tt.ran, len(tt.outs))
			}
		})
	}
}
