package permission

import (
	"fmt"
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

// answerShapes are 1 MiB commands of each shape issue 19 names, for the
// decision benchmarks (PERM-52, PERM-53): chains and pipes of short
// commands, one command of many quoted words, and nestings the grammar
// refuses (`$(`, `if`, `[[ !`), which must be answered, not crash.
var answerShapes = []struct{ name, head, unit, tail string }{
	{"chain", "", "ls -la && ", "ls"},
	{"pipe", "", "ls -la | ", "ls"},
	{"quoting", "echo", ` 'a b' "c d" e\ f`, ""},
	{"nesting", "", "$(", ""},
	{"if", "", "if ", "true"},
	{"test-not", "[[ ", "! ", "x ]]"},
	// One segment of 175,000 wrappers, each with an inner command that a
	// deny rule is compared with (PERM-47).
	{"wrappers", "", "nohup ", "ls"},
}

func shaped(head, unit, tail string, size int) string {
	n := (size - len(head) - len(tail)) / len(unit)
	return head + strings.Repeat(unit, n) + tail
}

// timeAnswer is the mean CPU time (cpuTime) of one permission answer over
// n runs.
func timeAnswer(rules []protocol.Rule, p call.Parsed, n int) time.Duration {
	start := cpuTime()
	for range n {
		Answer(rules, p)
	}
	return (cpuTime() - start) / time.Duration(n)
}

// BenchmarkAnswerSize answers a permission request for 1 MiB of each
// shape under one rule, and reports the time per answer and its ratio to
// 16 answers of 64 KiB of the same shape (near 1 when the time is linear
// in the size), in CPU time. The goal is 50 ms per 1 MiB on the CI machine; the
// benchmark reports, and never asserts, since a loaded machine would
// decide a timed assertion.
func BenchmarkAnswerSize(b *testing.B) { benchAnswerRatio(b, 1<<20, 64<<10, "1MiB", "16x64KiB") }

// BenchmarkAnswerLarge answers 4 MiB of each shape and 4 × 1 MiB of it,
// in the same run, and reports the ratio (near 1 when the time is linear)
// and the CPU time of 4 MiB. It tells the answer's own growth from the
// garbage collector's: BenchmarkAnswerSize's 64 KiB commands leave less
// live heap than the collector's 4 MiB minimum, so their words are never
// marked, while every command of 1 MiB or more pays cycles that mark its
// words, the same share of its time at 1 MiB and at 4 MiB.
func BenchmarkAnswerLarge(b *testing.B) { benchAnswerRatio(b, 4<<20, 1<<20, "4MiB", "4x1MiB") }

// benchAnswerRatio answers size bytes of each shape once and size/part
// answers of part bytes, in the same run, and reports the CPU time of the
// large answer and the ratio of the two (near 1 when the time is linear).
func benchAnswerRatio(b *testing.B, size, part int, large, parts string) {
	rules := []protocol.Rule{{Source: "session", Behavior: Allow, Content: ptr("ls:*")}}
	n := size / part
	for _, s := range answerShapes {
		b.Run(s.name, func(b *testing.B) {
			big := call.Parse(runArgs(shaped(s.head, s.unit, s.tail, size)))
			small := call.Parse(runArgs(shaped(s.head, s.unit, s.tail, part)))
			var tl, ts time.Duration
			for b.Loop() {
				tl += timeAnswer(rules, big, 1)
				ts += timeAnswer(rules, small, n)
			}
			b.ReportMetric(float64(tl.Milliseconds())/float64(b.N), "cpu-ms/"+large)
			b.ReportMetric(float64(tl)/float64(time.Duration(n)*ts), "ratio-"+large+"/"+parts)
		})
	}
}

// BenchmarkAnswerRules answers 1 MiB of each segment shape under 100
// rules and under one, in the same run, and reports the ratio (goal: at
// most 2). The rules are distinct prefix rules that all match, the worst
// case for "every segment matches" (PERM-3), plus deny rules that match
// nothing, the worst case for "some segment matches" (PERM-4).
func BenchmarkAnswerRules(b *testing.B) {
	one := []protocol.Rule{{Source: "session", Behavior: Allow, Content: ptr("ls:*")}}
	var many []protocol.Rule
	for i := range 50 {
		many = append(many, protocol.Rule{Source: "session", Behavior: Allow, Content: ptr("ls" + strings.Repeat(" ", i%3+1) + ":*")})
		many = append(many, protocol.Rule{Source: "user", Behavior: Deny, Content: ptr(fmt.Sprintf("rm%d:*", i))})
	}
	for _, s := range answerShapes {
		if s.name != "chain" && s.name != "pipe" && s.name != "quoting" && s.name != "wrappers" {
			continue // refused shapes: no rule is ever compared
		}
		b.Run(s.name, func(b *testing.B) {
			p := call.Parse(runArgs(shaped(s.head, s.unit, s.tail, 1<<20)))
			var t1, t100 time.Duration
			for b.Loop() {
				t1 += timeAnswer(one, p, 1)
				t100 += timeAnswer(many, p, 1)
			}
			b.ReportMetric(float64(t100)/float64(t1), "ratio-100rules/1rule")
		})
	}
}

// BenchmarkAnswerDeep answers a 400,000-deep `$(` (issue 19's crash: the
// parser's recursion exhausted Go's stack) and reports the time.
func BenchmarkAnswerDeep(b *testing.B) {
	p := call.Parse(runArgs(strings.Repeat("$(", 400_000)))
	var t time.Duration
	for b.Loop() {
		start := cpuTime()
		if a := Answer(nil, p); !a.Unknown {
			b.Fatal("a 400,000-deep nesting classified")
		}
		t += cpuTime() - start
	}
	b.ReportMetric(float64(t.Microseconds())/1000/float64(b.N), "cpu-ms/answer")
}

func ptr(s string) *string { return &s }

// BenchmarkDenyWrappers decides a 1 MiB chain of wrappers (`nohup nohup …
// ls`, about 175,000 inner commands) under one deny rule, which compares
// the rule with every inner command. It reports the decision's time as a
// ratio to classifying the same command, measured in the same run: the
// comparisons read each inner command only as far as the rule needs, so
// deciding stays a small multiple of classifying (Decide classifies once,
// PERM-53), in CPU time. Before the matcher knew each inner
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
		start := cpuTime()
		Classify(cmd)
		tc += cpuTime() - start
		start = cpuTime()
		Decide(rules, p)
		td += cpuTime() - start
	}
	b.ReportMetric(float64(td)/float64(tc), "ratio-decide/classify")
	b.ReportMetric(float64(td.Milliseconds())/float64(b.N), "ms-decide")
}

// BenchmarkFlatSegments classifies 1 MiB of each segment shape the flat
// way (flatSegments, what Classify does) and through the parser (what it
// did before, and still does for what flatSegments leaves to it), in the
// same run, and reports the ratio of their CPU times.
func BenchmarkFlatSegments(b *testing.B) {
	for _, s := range answerShapes {
		if s.name != "chain" && s.name != "pipe" && s.name != "quoting" && s.name != "wrappers" {
			continue // refused by flatStop before either path
		}
		b.Run(s.name, func(b *testing.B) {
			cmd := shaped(s.head, s.unit, s.tail, 1<<20)
			hazards, _, _ := scanText(cmd)
			var tf, tp time.Duration
			for b.Loop() {
				start := cpuTime()
				if c := Classify(cmd); c.Unknown {
					b.Fatal(c.Reason)
				}
				tf += cpuTime() - start
				start = cpuTime()
				s := segmenter{src: cmd, hazards: hazards}
				if err := s.stream(); err != nil || s.failed {
					b.Fatal(err, s.fail.Reason)
				}
				tp += cpuTime() - start
			}
			b.ReportMetric(float64(tf.Milliseconds())/float64(b.N), "cpu-ms-flat")
			b.ReportMetric(float64(tp.Milliseconds())/float64(b.N), "cpu-ms-parser")
			b.ReportMetric(float64(tf)/float64(tp), "ratio-flat/parser")
		})
	}
}
