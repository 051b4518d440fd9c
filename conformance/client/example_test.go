package client_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/apexcheck/apexcheck/conformance/client"
)

// The smallest implementation that completes a handshake and a shutdown,
// as a porter's first step: it answers hello with its identity and
// capabilities (PROTO-3) and shutdown by exiting.
const tinyImpl = `read -r hello
echo '{"id":"r1","type":"hello","protocol":1,"implementation":{"name":"tiny","version":"0.1","language":"sh"},"capabilities":["updates"]}'
read -r shutdown
echo '{"id":"r2","type":"shutdown"}'`

func ExampleHandshake() {
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	c, err := client.Handshake([]string{"sh", "-c", tinyImpl}, os.Environ(), dir, 10*time.Second, client.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	impl := c.Hello.Implementation
	fmt.Println(impl.Name, impl.Version, impl.Language, c.Capabilities()["updates"])
	// Output:
	// tiny 0.1 sh true
}

// An implementation that dies before the handshake is a *StartError that
// carries what it wrote to stderr, which usually says why.
func ExampleStartError() {
	dir, _ := os.MkdirTemp("", "example-")
	defer os.RemoveAll(dir)
	_, err := client.Start([]string{"sh", "-c", "echo 'cannot find module adapter.js' >&2; exit 1"}, os.Environ(), dir, 10*time.Second, client.Options{})
	var se *client.StartError
	if errors.As(err, &se) {
		fmt.Println(strings.TrimSpace(se.Stderr))
	}
	// Output:
	// cannot find module adapter.js
}
