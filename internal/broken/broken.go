// Package broken holds deliberately broken implementations of the bash
// tool, each with one named defect, served over the protocol. The
// self-tests run the suite against each and prove apexcheck reports it
// failing or errored, in bounded time: a kit that passes a broken tool
// certifies nothing.
//
// A defect is a wrapper around the reference, so each variant differs from
// the reference by exactly the defect it names. None of this is reachable
// from the apexcheck binary.
package broken

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/server"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// Variant is one broken implementation.
type Variant struct {
	// Defect says what is wrong, as a reviewer would put it.
	Defect string
	// Clause is the ID of the MUST clause the defect breaks (spec/), the
	// one a porter would be reading when they made it. Empty on variants
	// written before clauses were recorded.
	Clause string
	// Scenarios is a regexp selecting the scenarios that must catch it.
	Scenarios string
	// Serve runs the variant on stdin and stdout.
	Serve func(in io.Reader, out io.Writer) error
}

// Variants are the broken implementations by name.
var Variants = map[string]Variant{}

// Register adds a variant; areas register theirs from init functions.
func Register(name string, v Variant) {
	if _, dup := Variants[name]; dup {
		panic("broken: variant registered twice: " + name)
	}
	Variants[name] = v
}

// Names returns the variant names in order.
func Names() []string {
	names := make([]string, 0, len(Variants))
	for n := range Variants {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Main serves the variant named by the first argument.
func Main(args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(os.Stderr, "usage: broken VARIANT")
		return 2
	}
	v, ok := Variants[args[0]]
	if !ok {
		v, ok = Controls[args[0]]
	}
	if !ok {
		fmt.Fprintf(os.Stderr, "broken: no variant %q\n", args[0])
		return 2
	}
	if err := v.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "broken:", err)
		return 1
	}
	return 0
}

// Wrapped serves the reference with its tool wrapped by wrap.
func Wrapped(wrap func(server.Handler) server.Handler) func(io.Reader, io.Writer) error {
	return func(in io.Reader, out io.Writer) error {
		s := server.Reference()
		s.Tool = wrap(s.Tool)
		return s.Serve(in, out)
	}
}

// ExecuteFunc adapts a replacement Execute into a Handler around inner.
type ExecuteFunc struct {
	server.Handler
	Exec func(ctx context.Context, c tool.Call) protocol.Result
}

// Execute calls the replacement.
func (e ExecuteFunc) Execute(ctx context.Context, c tool.Call) protocol.Result { return e.Exec(ctx, c) }

// rewritingArgs serves the reference with every call's raw arguments
// edited by edit before the tool sees them.
func rewritingArgs(edit func(map[string]any)) func(io.Reader, io.Writer) error {
	return Wrapped(func(h server.Handler) server.Handler {
		return ExecuteFunc{Handler: h, Exec: func(ctx context.Context, c tool.Call) protocol.Result {
			c.Args = rewriteArgs(c.Args, edit)
			return h.Execute(ctx, c)
		}}
	})
}

// rewriteArgs decodes raw tool arguments as an object, lets edit change
// them, and encodes them again; arguments that are not an object pass
// through untouched.
func rewriteArgs(raw []byte, edit func(map[string]any)) []byte {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	edit(m)
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}
