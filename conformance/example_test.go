package conformance_test

import (
	"fmt"
	"strings"
	"testing/fstest"

	"github.com/apexcheck/apexcheck/conformance"
	"github.com/apexcheck/apexcheck/conformance/suite"
)

// Run runs scenarios and returns their outcomes. These two use only
// testscript's own commands, so no implementation starts; Capabilities,
// given here, stands in for the handshake that would otherwise learn
// them. A scenario that requires a capability the implementation does not
// declare is skipped, never passed.
func ExampleRun() {
	scripts := fstest.MapFS{
		"exec_echo.txtar": {Data: []byte("# The shell's echo prints its argument.\n# clauses: EXEC-1\nexec echo hello\nstdout '^hello$'\n")},
		"bg_job.txtar":    {Data: []byte("# A background job.\n# clauses: BG-1\n# requires: background\nexec true\n")},
	}
	results, err := conformance.Run(conformance.Config{
		Impl:         []string{"my-implementation", "--serve"},
		Scripts:      scripts,
		Dir:          ".",
		Capabilities: map[string]bool{"updates": true},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range results {
		fmt.Println(strings.TrimSpace(fmt.Sprint(r.Scenario.Name, " ", r.Outcome, " ", r.Message)))
	}
	fmt.Println(suite.Count(results))
	// Output:
	// bg_job skipped implementation does not declare background
	// exec_echo passed
	// 1 passed, 0 failed, 0 errored, 1 skipped
}
