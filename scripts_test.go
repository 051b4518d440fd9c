package apexcheck_test

import (
	"os"
	"testing"

	"github.com/apexcheck/apexcheck"
	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/internal/roles"
)

// TestMain lets the test binary play the reference (`serve`) and the fake
// shells, so the scenarios run against the reference through the same
// protocol as against anyone else.
func TestMain(m *testing.M) {
	roles.Dispatch()
	os.Exit(m.Run())
}

// TestScenarios runs every scenario against the reference implementation.
func TestScenarios(t *testing.T) {
	conformance.Test(t, conformance.Config{
		Impl:    []string{os.Args[0], roles.ServeArg},
		Scripts: apexcheck.Scripts,
		Dir:     ".",
		SelfExe: os.Args[0],
	})
}
