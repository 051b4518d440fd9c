package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/internal/skeleton"
)

// initHelp is what init --help prints between the synopsis and the flags.
const initHelp = `
Write a minimal, commented protocol adapter skeleton for your bash tool in
LANG (python, node or go). It speaks the protocol, runs each call with plain
bash -lc, and passes the proto_ scenarios out of the box; replace the one
function marked REPLACE THIS FUNCTION with a call into your tool. It refuses
to overwrite existing files.`

// cmdInit writes an adapter skeleton (apexcheck init --lang L [--dir D]) and
// prints the commands that certify it.
func cmdInit(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("init", stdout, stderr)
	lang := fs.String("lang", "", "the adapter's `LANGUAGE`: "+strings.Join(skeleton.Langs(), ", "))
	dir := fs.String("dir", ".", "write the skeleton into `DIR` (created if missing)")
	if code, done := fs.parse(args, 0); done {
		return code
	}
	if *lang == "" {
		return fs.usageError(errors.New("--lang is required"))
	}
	sk, err := skeleton.Lookup(*lang)
	if err != nil {
		return fs.usageError(err)
	}
	paths, err := sk.Write(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "apexcheck init:", err)
		return ExitUsage
	}
	for _, p := range paths {
		fmt.Fprintf(stdout, "wrote %s\n", p)
	}
	fmt.Fprintf(stdout, "\nThe adapter speaks the protocol and runs each call with plain `bash -lc`.\n")
	fmt.Fprintf(stdout, "Replace the function marked REPLACE THIS in %s with a call into your tool.\n", sk.Adapter)
	fmt.Fprintf(stdout, "\nNext, certify it. A tool that is not a port of apex-code starts with the core profile:\n")
	fmt.Fprintf(stdout, "what every agent's shell tool should do, whatever words it frames its results in. The\n")
	fmt.Fprintf(stdout, "default profile, apex, is apex-code's whole contract, exact texts included.\n\n")
	for _, c := range sk.Commands(*dir) {
		if strings.HasPrefix(c, "apexcheck --impl ") {
			fmt.Fprintf(stdout, "    %s --profile core\n", c)
			fmt.Fprintf(stdout, "    %s                  # apex: the whole contract\n", c)
			continue
		}
		fmt.Fprintf(stdout, "    %s\n", c)
	}
	fmt.Fprintf(stdout, "\nWhile failures remain, record them in an expectation ledger: add --write-expect expected.json,\n")
	fmt.Fprintf(stdout, "replace each TODO reason, then run with --expect expected.json. Each entry pins the version of\n")
	fmt.Fprintf(stdout, "its scenario, so a kit upgrade flags only the entries whose scenario changed.\n")
	return ExitConformant
}
