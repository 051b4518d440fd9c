package server

import (
	"fmt"
	"os"

	"github.com/apexcheck/apexcheck/internal/version"
	"github.com/apexcheck/apexcheck/protocol"
	"github.com/apexcheck/apexcheck/ref/background"
	"github.com/apexcheck/apexcheck/ref/loginpath"
	"github.com/apexcheck/apexcheck/ref/permission"
	"github.com/apexcheck/apexcheck/ref/tool"
)

// ReferenceCapabilities are the capabilities the reference declares.
var ReferenceCapabilities = []string{
	protocol.CapAbort,
	protocol.CapBackground,
	protocol.CapEvidence,
	protocol.CapFullOutput,
	protocol.CapPathProbe,
	protocol.CapPermissions,
	protocol.CapProcessTree,
	protocol.CapRender,
	protocol.CapSessionEnv,
	protocol.CapShellPath,
	protocol.CapUpdates,
}

// Reference returns a server for the reference tool configured from the
// process environment.
func Reference() *Server { return ReferenceWith(nil) }

// ReferenceWith is Reference with the tool configuration changed by edit
// before the tool is built, when edit is not nil. The kit's broken variants
// use it to replace one concern of the reference with a defective one.
func ReferenceWith(edit func(*tool.Config)) *Server {
	cfg := tool.Config{
		Background:  background.New(background.Options{}), // spec/background.md
		LoginPATH:   loginpath.LoginPATH,                  // spec/path-probe.md
		Permissions: permission.Answer,                    // spec/permissions.md
	}
	if edit != nil {
		edit(&cfg)
	}
	return &Server{
		Impl: protocol.Implementation{
			Name:     "apexcheck-reference",
			Version:  version.Kit,
			Language: "go",
			Homepage: "https://github.com/apexcheck/apexcheck",
		},
		Capabilities: ReferenceCapabilities,
		Tool:         tool.New(cfg),
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
