package permission

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestClassifyEncoding covers the one class JSON cannot carry: bytes that
// are not UTF-8 (PERM-18).
func TestClassifyEncoding(t *testing.T) {
	for _, c := range []string{
		"ls \xff",
		"\xc0\xafbin/sh",    // overlong encoding of '/'
		"echo \xe3\x80",     // truncated sequence
		"echo \xed\xa0\x80", // an encoded surrogate (CESU-8)
		"echo '\xfe'",       // even inside quotes
	} {
		got := Classify(c)
		if !got.Unknown || !strings.HasPrefix(got.Reason, ReasonEncoding+":") {
			t.Errorf("Classify(%q) = %+v, want unknown for encoding", c, got)
		}
	}
}

// TestClassifyNoCap: a command of more than 1 MiB, in one segment or in
// tens of thousands, classifies in full (PERM-30).
func TestClassifyNoCap(t *testing.T) {
	chain := strings.Repeat("ls -la && ", 1<<17) + "pwd"
	c := Classify(chain)
	if c.Unknown || len(c.Segments) != 1<<17+1 || c.Segments[len(c.Segments)-1] != "pwd" {
		t.Fatalf("chain of %d bytes: unknown=%v reason=%q segments=%d", len(chain), c.Unknown, c.Reason, len(c.Segments))
	}
	word := "echo " + strings.Repeat("a", 1<<20)
	if c := Classify(word); c.Unknown || !slices.Equal(c.Segments, []string{word}) {
		t.Fatalf("one word of 1 MiB: unknown=%v reason=%q", c.Unknown, c.Reason)
	}
	// A refused construct at the very end of a long command still refuses it.
	if c := Classify(chain + " > out"); !c.Unknown {
		t.Fatal("a redirection after 1 MiB of allowed text was not refused")
	}
}

// TestCorpusParsesInBash checks the corpus against bash itself, where one is
// installed: every command the corpus expects to classify must be valid
// bash (`bash -n` parses without running anything), and every command it
// calls a parse error must not be.
func TestCorpusParsesInBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	for i, e := range load[commandEntry](t, "commands.json") {
		if e.Want != "segments" && e.Class != ReasonParse {
			continue
		}
		err := exec.Command(bash, "--norc", "--noprofile", "-n", "-c", "--", e.Command).Run()
		switch {
		case e.Want == "segments" && err != nil:
			t.Errorf("commands[%d] %q: classified, but bash -n says %v", i, e.Command, err)
		case e.Class == ReasonParse && err == nil:
			t.Errorf("commands[%d] %q: a parse error to the corpus, but bash -n accepts it", i, e.Command)
		}
	}
}
