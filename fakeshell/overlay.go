package fakeshell

// OverlayRole is the value of APEXCHECK_ROLE that makes the kit's binary
// set up a bin overlay (see Overlay) and then exec a program in it.
const OverlayRole = "binoverlay"

// OverlayVariable carries the Overlay, as JSON, to the role.
const OverlayVariable = "APEXCHECK_BINOVERLAY"

// Overlay changes what one directory of executables shows, for one program
// and its descendants only: in a private mount namespace (and a user
// namespace when the runner is not root) an overlay over the directory
// adds files and hides others. It lets a scenario control /bin/zsh,
// /bin/bash and /bin/sh, the login shell fallback chain, hermetically.
// With Tmp set it shows a small, empty filesystem there instead: a full
// disk for the program's temporary files, and nothing else changed.
type Overlay struct {
	// Scratch is an existing directory the overlay's own tmpfs is mounted
	// on; it is empty outside the namespace.
	Scratch string `json:"scratch"`
	// Dir is the directory overlaid; "" means the directory /bin resolves
	// to (/usr/bin where /bin is a symlink), so /bin/NAME and /usr/bin/NAME
	// change together on merged-/usr systems.
	Dir string `json:"dir,omitempty"`
	// Files maps a name in Dir to the file shown there (copied, with its
	// permission bits), or to "" to hide the name. The overlay is mounted
	// read-only.
	Files map[string]string `json:"files"`
	// Tmp, when set, is a directory (the program's TMPDIR) over which a
	// tmpfs of TmpSize bytes is mounted instead of any bin overlay: writes
	// past TmpSize fail with ENOSPC, as on a full disk. A file-size limit
	// (RLIMIT_FSIZE) would fail them too, but with a SIGXFSZ that programs
	// which handle every signal (Node's signal-exit, for one) turn into
	// their own death, which no full disk causes.
	Tmp     string `json:"tmp,omitempty"`
	TmpSize int64  `json:"tmpSize,omitempty"`
	// Check only sets the overlay up and exits 0: the probe behind the
	// runner's [userns] condition.
	Check bool `json:"check,omitempty"`
}
