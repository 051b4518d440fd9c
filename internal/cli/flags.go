package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// flagSet is a subcommand's flag set. Help goes to stdout and exits 0; a
// bad flag or argument gets one line on stderr naming it and pointing to
// --help, and exits 2. The flag package's own output (the whole usage
// after every mistake) is silenced: it buries the one line that matters.
type flagSet struct {
	*flag.FlagSet
	cmd            *subcommand
	stdout, stderr io.Writer
}

// newFlagSet returns the flag set of the subcommand called name ("" for
// the default command, a run).
func newFlagSet(name string, stdout, stderr io.Writer) *flagSet {
	cmd := lookup(name)
	if cmd == nil {
		panic("cli: no subcommand " + name)
	}
	fs := flag.NewFlagSet(cmd.title(), flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, cmd: cmd, stdout: stdout, stderr: stderr}
}

// parse parses args, allowing at most maxArgs positional arguments (-1 for
// any number). When done is true the command should return code: help was
// printed, or a usage error.
func (fs *flagSet) parse(args []string, maxArgs int) (code int, done bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.printHelp()
			return ExitConformant, true
		}
		return fs.usageError(errors.New(flagError(err))), true
	}
	if maxArgs >= 0 && fs.NArg() > maxArgs {
		return fs.usageError(fmt.Errorf("unexpected argument %q", fs.Arg(maxArgs))), true
	}
	return 0, false
}

// flagError rewords the flag package's errors where they are obscure.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return "unknown flag " + name
	}
	return msg
}

// usageError prints err as one line with a pointer to --help, and returns
// the usage exit code.
func (fs *flagSet) usageError(err error) int {
	fmt.Fprintf(fs.stderr, "%s: %v (see '%s --help')\n", fs.Name(), err, fs.Name())
	return ExitUsage
}

// printHelp prints the subcommand's help: synopsis, description, flags.
func (fs *flagSet) printHelp() {
	w := fs.stdout
	if fs.cmd.name == "" {
		writeOverview(w)
	} else {
		fmt.Fprintf(w, "usage: %s\n\n%s\n", fs.cmd.synopsis(), strings.TrimSpace(fs.cmd.help))
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}
