package script

import (
	"testing"
	"time"
)

func TestFormatStamp(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0.000000"},
		{1500 * time.Nanosecond, "0.000001"},
		{time.Second + 20*time.Microsecond, "1.000020"},
		{3723*time.Second + 456789*time.Microsecond, "3723.456789"},
	} {
		if got := formatStamp(c.d); got != c.want {
			t.Errorf("formatStamp(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestCheckElapsed(t *testing.T) {
	for _, c := range []struct {
		name          string
		s, a, b, c, d float64
		slack, ppm    float64
		ok            bool
	}{
		{"inside", 2.0, 10, 11.9, 9.9, 12.1, 0.051, 0, true},
		{"at the lower slack", 1.8, 10, 11.851, 9.9, 12.1, 0.051, 0, true},
		{"below the lower slack", 1.8, 10, 11.853, 9.9, 12.1, 0.051, 0, false},
		{"at the upper slack", 2.0, 10, 11.9, 10, 11.949, 0.051, 0, true},
		{"above the upper slack", 2.0, 10, 11.9, 10, 11.947, 0.051, 0, false},
		{"below, saved by ppm", 1.8, 10, 11.853, 9.9, 12.1, 0.051, 2000, true},
		{"above, saved by ppm", 2.0, 10, 11.9, 10, 11.947, 0.051, 2000, true},
		{"the stamps' microsecond", 1.0, 0, 1.000001, 0, 1, 0, 0, true},
	} {
		_, _, err := checkElapsed(c.s, c.a, c.b, c.c, c.d, c.slack, c.ppm)
		if (err == nil) != c.ok {
			t.Errorf("%s: checkElapsed(%v, [%v→%v], [%v→%v], %v, %v) = %v, want ok %v",
				c.name, c.s, c.a, c.b, c.c, c.d, c.slack, c.ppm, err, c.ok)
		}
	}
}
