package apexcheck_test

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestAdaptersFaithful runs each Node adapter's translation tests
// (adapters/NAME/translate.test.mjs, node:test): each feeds known results
// of its tool through the adapter's translation and fails if the adapter
// alters one (adapters/README.md, the rule). Codex has no adapter: the
// kit's MCP bridge translates its results, tested in internal/mcpbridge.
// Skipped where node is missing, as the third parties' runs are.
func TestAdaptersFaithful(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is needed to test the adapters' translations")
	}
	files, err := filepath.Glob("adapters/*/translate.test.mjs")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 3 {
		t.Fatalf("found %d translation tests, want one for each of pi, gemini and qwen: %v", len(files), files)
	}
	out, err := exec.Command(node, append([]string{"--test"}, files...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %v: %v\n%s", files, err, out)
	}
}
