// Package apexcheck embeds the kit's normative text and scenario suite, so
// that an installed apexcheck binary carries everything it certifies
// against.
package apexcheck

import (
	"embed"
	"io/fs"
)

//go:embed spec testdata/scripts testdata/permissions
var files embed.FS

// Spec is the spec/ directory: one Markdown file per area.
var Spec = mustSub("spec")

// Scripts is the directory of scenario files (*.txtar).
var Scripts = mustSub("testdata/scripts")

// Permissions is the permission corpus (commands.json, rules.json,
// engine.json and its README), which the perm scenarios run through the
// protocol with the runner's permcorpus command.
var Permissions = mustSub("testdata/permissions")

// Suite is everything that decides a run's outcomes besides the
// implementation: the scenarios (scripts/) and the data they read
// (permissions/). Its digest pins ledgers and certificates.
var Suite = mustSub("testdata")

func mustSub(dir string) fs.FS { return mustSubOf(files, dir) }

func mustSubOf(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}
