package background_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// serveWithoutBackground is the first argument that makes this test binary
// the reference with its background support removed: a conforming
// implementation that does not declare `background` (BG-21).
const serveWithoutBackground = "serve-without-background"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == serveWithoutBackground {
		s := server.ReferenceWith(func(c *tool.Config) { c.Background = nil })
		s.Capabilities = slices.DeleteFunc(slices.Clone(s.Capabilities),
			func(c string) bool { return c == protocol.CapBackground })
		if err := s.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestScenariosWithoutBackground runs the bg scenarios against the
// reference without background support: bg_no_support, which the full
// reference skips, must pass; every scenario that needs background must be
// skipped, never sent (PROTO-4); the rest must not fail.
func TestScenariosWithoutBackground(t *testing.T) {
	results, err := conformance.Run(conformance.Config{
		Impl:    []string{os.Args[0], serveWithoutBackground},
		Scripts: apexcheck.Scripts,
		Dir:     ".",
		Run:     regexp.MustCompile(`^bg_`),
	})
	if err != nil {
		t.Fatal(err)
	}
	sawNoSupport := false
	for _, r := range results {
		switch {
		case r.Scenario.Name == "bg_no_support":
			sawNoSupport = true
			if r.Outcome != suite.Passed {
				t.Errorf("bg_no_support: %s: %s\n%s", r.Outcome, r.Message, r.Log)
			}
		case slices.Contains(r.Scenario.Requires, protocol.CapBackground):
			if r.Outcome != suite.Skipped {
				t.Errorf("%s: %s, want skipped: %s", r.Scenario.Name, r.Outcome, r.Message)
			}
		case r.Outcome != suite.Passed && r.Outcome != suite.Skipped:
			// Permission answers for handle calls need no background support.
			t.Errorf("%s: %s: %s", r.Scenario.Name, r.Outcome, r.Message)
		}
	}
	if !sawNoSupport {
		t.Error("scenario bg_no_support not found")
	}
}
