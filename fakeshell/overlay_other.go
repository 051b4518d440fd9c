//go:build !linux

package fakeshell

import (
	"errors"
	"os/exec"
)

var errNoOverlay = errors.New("bin overlays need Linux namespaces")

// Command fails: bin overlays need Linux mount namespaces.
func (o Overlay) Command(self string, argv []string, env []string) (*exec.Cmd, error) {
	return nil, errNoOverlay
}

// OverlayMain fails: bin overlays need Linux mount namespaces.
func OverlayMain() int { return 125 }
