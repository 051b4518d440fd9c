package server

import (
	"fmt"
	"os"

	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// ReferenceCapabilities are the capabilities the reference declares.
var ReferenceCapabilities = []string{
	protocol.CapAbort,
	protocol.CapEvidence,
	protocol.CapFullOutput,
	protocol.CapProcessTree,
	protocol.CapRender,
	protocol.CapSessionEnv,
	protocol.CapShellPath,
	protocol.CapUpdates,
}

// Reference returns a server for the reference tool configured from the
// process environment.
func Reference() *Server {
	return &Server{
		Impl: protocol.Implementation{
			Name:     "apexcheck-reference",
			Version:  version.Kit,
			Language: "go",
			Homepage: "https://github.com/apexcheck/apexcheck",
		},
		Capabilities: ReferenceCapabilities,
		Tool:         tool.New(tool.Config{}),
	}
}

// Main serves the reference on stdin and stdout and returns the process
// exit code.
func Main() int {
	if err := Reference().Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "apexcheck serve:", err)
		return 1
	}
	return 0
}
