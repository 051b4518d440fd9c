package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apexcheck/apexcheck/internal/skeleton"
)

// cmdInit writes an adapter skeleton (apexcheck init --lang L [--dir D]) and
// prints the commands that certify it.
func cmdInit(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("apexcheck init", stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: apexcheck init --lang %s [--dir DIR]\n\nwrites a protocol adapter skeleton for your bash tool; it refuses to overwrite files.\n\nflags:\n", strings.Join(skeleton.Langs(), "|"))
		fs.PrintDefaults()
	}
	lang := fs.String("lang", "", "the adapter's `LANGUAGE`: "+strings.Join(skeleton.Langs(), ", "))
	dir := fs.String("dir", ".", "write the skeleton into `DIR` (created if missing)")
	if code, done := parse(fs, args, stderr); done {
		return code
	}
	if *lang == "" {
		return usageError(fs, stderr, errors.New("--lang is required"))
	}
	sk, err := skeleton.Lookup(*lang)
	if err != nil {
		return usageError(fs, stderr, err)
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
	fmt.Fprintf(stdout, "\nNext, certify it:\n\n")
	for _, c := range sk.Commands(*dir) {
		fmt.Fprintf(stdout, "    %s\n", c)
	}
	return ExitConformant
}
