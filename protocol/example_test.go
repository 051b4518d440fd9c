package protocol_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/apexcheck/apexcheck/protocol"
)

// A runner's first request is hello, offering the versions it speaks
// (PROTO-3); each message is one line.
func ExampleWriter() {
	w := protocol.NewWriter(os.Stdout)
	w.Write(protocol.Request{ID: "r1", Type: protocol.TypeHello, Versions: []int{protocol.Version}})
	// Output:
	// {"id":"r1","type":"hello","versions":[1]}
}

// Commands go on the wire as written: no HTML escaping of &, < or >.
func ExampleMarshal() {
	line, _ := protocol.Marshal(map[string]string{"command": "ls && echo <done>"})
	fmt.Println(string(line))
	// Output:
	// {"command":"ls && echo <done>"}
}

// Reader.Line returns each non-empty line, the last one even without a
// newline.
func ExampleReader_Line() {
	r := protocol.NewReader(strings.NewReader("{\"id\":\"r1\",\"type\":\"hello\"}\n\n{\"id\":\"r2\",\"type\":\"shutdown\"}"))
	for {
		line, err := r.Line()
		if err != nil {
			break
		}
		fmt.Println(string(line))
	}
	// Output:
	// {"id":"r1","type":"hello"}
	// {"id":"r2","type":"shutdown"}
}
