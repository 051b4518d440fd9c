package script

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFullfile checks the full-output file the last result names in
// details.fullOutputPath (output.md OUT-20 to OUT-24):
//
//	fullfile [-var NAME] [-perm MODE] [DEST]
//
// The path must name a regular file (not a symlink, which Lstat would
// show). The path is printed to stdout, so that `stdout` can check its
// name; -var sets $NAME to it; -perm requires its permission bits to be
// exactly MODE (octal); DEST, when given, receives a byte-for-byte copy, for
// `cmp` against what the command wrote. A result without the field fails:
// `! field result.details.fullOutputPath` asserts its absence.
func cmdFullfile(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("fullfile does not support negation; use ! field result.details.fullOutputPath")
	}
	flags := newFlags(ts, "fullfile")
	name := flags.String("var", "", "set $NAME to the path")
	perm := flags.String("perm", "", "required permission bits, in octal")
	parseFlags(ts, flags, args)
	if flags.NArg() > 1 {
		ts.Fatalf("usage: fullfile [-var NAME] [-perm MODE] [DEST]")
	}
	if s.last == nil || s.last.Result == nil {
		ts.Fatalf("fullfile: no result yet")
	}
	d := s.last.Result.Details
	if d == nil || d.FullOutputPath == "" {
		ts.Fatalf("fullfile: the last result has no details.fullOutputPath")
	}
	path := d.FullOutputPath
	info, err := os.Lstat(path)
	if err != nil {
		ts.Fatalf("fullfile: %v", err)
	}
	if !info.Mode().IsRegular() {
		ts.Fatalf("fullfile: %s is not a regular file (mode %v)", path, info.Mode())
	}
	if *perm != "" {
		want, err := strconv.ParseUint(*perm, 8, 32)
		if err != nil {
			ts.Fatalf("fullfile: -perm %q is not an octal mode", *perm)
		}
		if got := info.Mode().Perm(); got != fs.FileMode(want) {
			ts.Fatalf("fullfile: %s has mode %04o, want %04o", path, got, want)
		}
	}
	if *name != "" {
		ts.Setenv(*name, path)
	}
	if flags.NArg() == 1 {
		src, err := os.Open(path)
		ts.Check(err)
		defer src.Close()
		dst, err := os.Create(ts.MkAbs(flags.Arg(0)))
		ts.Check(err)
		_, err = io.Copy(dst, src)
		ts.Check(err)
		ts.Check(dst.Close())
	}
	fmt.Fprintln(ts.Stdout(), path)
}

// cmdRss checks that the implementation's memory does not grow with the
// output it is given (output.md OUT-25):
//
//	rss mark
//	rss -grown-under MIB
//
// "mark" remembers the peak resident set size (VmHWM in /proc) summed over
// the implementation and every live process it started that carries the
// scenario's marker; -grown-under fails unless that sum has grown by less
// than MIB mebibytes since. Peaks never shrink, so a call that held its
// whole output in memory, even briefly, shows. Shells that have exited no
// longer count, which is why a scenario measures after its calls return.
func cmdRss(ts *testscript.TestScript, neg bool, args []string) {
	s := getState(ts)
	if neg {
		ts.Fatalf("rss does not support negation")
	}
	flags := newFlags(ts, "rss")
	under := flags.Int64("grown-under", 0, "the growth bound in MiB")
	parseFlags(ts, flags, args)
	mark := flags.NArg() == 1 && flags.Arg(0) == "mark" && *under == 0
	if !mark && (flags.NArg() != 0 || *under <= 0) {
		ts.Fatalf("usage: rss mark | rss -grown-under MIB")
	}
	c := s.ensureClient()
	if c.Exited() {
		ts.Fatalf("rss: the implementation has exited")
	}
	peak := peakRSS(s.marker, c.Pid())
	if mark {
		s.rssMark = peak
		ts.Logf("peak RSS %.1f MiB", float64(peak)/(1<<20))
		return
	}
	if s.rssMark == 0 {
		ts.Fatalf("rss: no mark yet")
	}
	grown := peak - s.rssMark
	ts.Logf("peak RSS %.1f MiB, grown by %.1f MiB", float64(peak)/(1<<20), float64(grown)/(1<<20))
	if grown >= *under<<20 {
		ts.Fatalf("peak RSS grew by %.1f MiB (from %.1f to %.1f MiB), want less than %d MiB",
			float64(grown)/(1<<20), float64(s.rssMark)/(1<<20), float64(peak)/(1<<20), *under)
	}
}

// watchRSS waits, until p is answered or bound has passed, for the
// implementation's own peak memory to reach underMiB mebibytes above the
// rss mark, and fails the scenario the moment it does (call
// -rss-grown-under). The verdict is the one the rss -grown-under check
// after the call would give: that check sums the same peak, which never
// shrinks, with those of the implementation's live helpers, so it can
// only be higher. Deciding it early spares the wait for a tool that holds
// a 128 MiB output and takes minutes over it, and the implementation is
// stopped with the scenario. The call's shells are not counted here (they
// are alive during the call and gone after it), which is why the check
// after the call stays.
func (s *state) watchRSS(p *client.Pending, bound time.Duration, underMiB int64) {
	c := s.client
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
		peak := vmHWM(c.Pid())
		if grown := peak - s.rssMark; grown >= underMiB<<20 {
			s.ts.Fatalf("peak RSS of the implementation grew by %.1f MiB (from %.1f to %.1f MiB) while the call ran, want less than %d MiB (the call was not awaited further)",
				float64(grown)/(1<<20), float64(s.rssMark)/(1<<20), float64(peak)/(1<<20), underMiB)
		}
	}
}

// peakRSS sums VmHWM, in bytes, over pid and the live processes carrying
// marker.
func peakRSS(marker string, pid int) int64 {
	pids := append(client.Survivors(marker, pid), pid)
	var sum int64
	for _, p := range pids {
		sum += vmHWM(p)
	}
	return sum
}

// vmHWM reads a process's peak resident set size in bytes; 0 when the
// process is gone.
func vmHWM(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
