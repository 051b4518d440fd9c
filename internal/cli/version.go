package cli

import (
	"fmt"
	"io"

	"github.com/apexcheck/apexcheck/conformance/suite"
	"github.com/apexcheck/apexcheck/internal/version"
)

const versionHelp = `
Print the kit version and the full digest of the embedded suite, which
certificates are pinned to (an expectation ledger pins each entry to its
scenario instead). apexcheck --version prints the same.`

// cmdVersion prints the kit version and suite digest.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("version", stdout, stderr)
	if code, done := fs.parse(args, 0); done {
		return code
	}
	digest, err := suite.Digest(embedded.Data, ".")
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck version:", err)
		return ExitUsage
	}
	fmt.Fprintf(stdout, "apexcheck %s (suite %s)\n", version.Kit, digest)
	return ExitConformant
}
