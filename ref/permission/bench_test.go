package permission

import (
	"strings"
	"testing"
	"time"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/call"
)

// BenchmarkClassifyCorpus classifies every command of commands.json, and
// reports classifications per second (PERM-30 sets no cap, so speed is what
// keeps long commands affordable).
func BenchmarkClassifyCorpus(b *testing.B) {
	var commands []string
	for _, e := range load[commandEntry](b, "commands.json") {
		commands = append(commands, e.Command)
	}
	benchClassifications(b, commands)
}

// BenchmarkClassifyTypical classifies the corpus commands that classify as
// segments and are under 200 bytes: the commands a model sends all day.
func BenchmarkClassifyTypical(b *testing.B) {
	var commands []string
	for _, e := range load[commandEntry](b, "commands.json") {
		if e.Want == "segments" && len(e.Command) < 200 {
			commands = append(commands, e.Command)
		}
	}
	benchClassifications(b, commands)
}

func benchClassifications(b *testing.B, commands []string) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		for _, c := range commands {
			Classify(c)
		}
		n += len(commands)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "classifications/s")
}

// sized builds a command of exactly size bytes in one of three shapes: a
// chain of short simple commands (the parser's worst case per byte), one
// simple command with many words, or one command with a single quoted
// argument holding lines of text (a script passed to an interpreter).
func sized(shape string, size int) string {
	var head, unit, tail string
	switch shape {
	case "chain":
		head, unit, tail = "", "ls -la && ", "ls"
	case "words":
		head, unit, tail = "echo", " abcdefghi", ""
	case "quoted":
		head, unit, tail = "python3 -c '", "print(1) # a line\n", "'"
	case "wrappers":
		// One segment with as many inner commands as words (PERM-47):
		// each is a suffix of the segment that a deny rule is compared with.
		head, unit, tail = "", "nohup ", "ls"
	}
	n := (size - len(head) - len(tail)) / len(unit)
	s := head + strings.Repeat(unit, n) + tail
	return s + strings.Repeat("x", size-len(s))
}

var shapes = []string{"chain", "words", "quoted", "wrappers"}

func BenchmarkClassifySize(b *testing.B) {
	for _, shape := range shapes {
		for _, size := range []struct {
			name  string
			bytes int
		}{{"1KiB", 1 << 10}, {"64KiB", 64 << 10}, {"1MiB", 1 << 20}} {
			cmd := sized(shape, size.bytes)
			if c := Classify(cmd); c.Unknown {
				b.Fatalf("%s %s: %s", shape, size.name, c.Reason)
			}
			b.Run(shape+"/"+size.name, func(b *testing.B) {
				b.SetBytes(int64(len(cmd)))
				b.ReportAllocs()
				for b.Loop() {
					Classify(cmd)
				}
			})
		}
	}
}

// BenchmarkClassifyLinearity reports how much longer a 1 MiB command takes
// than a 64 KiB one; linear time gives a ratio near 16.
func BenchmarkClassifyLinearity(b *testing.B) {
	for _, shape := range shapes {
		b.Run(shape, func(b *testing.B) {
			small, large := sized(shape, 64<<10), sized(shape, 1<<20)
			var ts, tl time.Duration
			for b.Loop() {
				start := time.Now()
				Classify(small)
				ts += time.Since(start)
				start = time.Now()
				Classify(large)
				tl += time.Since(start)
			}
			b.ReportMetric(float64(tl)/float64(ts), "ratio-1MiB/64KiB")
		})
	}
}

// BenchmarkDenyWrappers decides a 1 MiB chain of wrappers (`nohup nohup …
// ls`, about 175,000 inner commands) under one deny rule, which compares
// the rule with every inner command. It reports the decision's time as a
// ratio to classifying the same command, measured in the same run: the
// comparisons read each inner command only as far as the rule needs, so
// deciding stays a small multiple of classifying (Decide classifies once
// for the rule and once for PERM-5). Before the matcher knew each inner
// command's sensitivity from its segment it read all of each, and 256 KiB
// took minutes.
func BenchmarkDenyWrappers(b *testing.B) {
	cmd := sized("wrappers", 1<<20)
	deny := "rm:*"
	rules := []protocol.Rule{{Source: "session", Behavior: Deny, Content: &deny}}
	p := call.Parsed{OK: true, Operation: call.Operation{Kind: call.Run, Command: cmd}}
	if c := Classify(cmd); c.Unknown || len(c.Inner) < 100_000 {
		b.Fatalf("the chain classifies as %s with %d inner commands", c.Reason, len(c.Inner))
	}
	var tc, td time.Duration
	for b.Loop() {
		start := time.Now()
		Classify(cmd)
		tc += time.Since(start)
		start = time.Now()
		Decide(rules, p)
		td += time.Since(start)
	}
	b.ReportMetric(float64(td)/float64(tc), "ratio-decide/classify")
	b.ReportMetric(float64(td.Milliseconds())/float64(b.N), "ms-decide")
}
