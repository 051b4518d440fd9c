// Package apexcheck embeds the kit's normative text and scenario suite, so
// that an installed apexcheck binary carries everything it certifies
// against.
package apexcheck

import (
	"embed"
	"io/fs"
)

//go:embed spec testdata/scripts
var files embed.FS

// Spec is the spec/ directory: one Markdown file per area.
var Spec = mustSub("spec")

// Scripts is the directory of scenario files (*.txtar).
var Scripts = mustSub("testdata/scripts")

func mustSub(dir string) fs.FS {
	sub, err := fs.Sub(files, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
