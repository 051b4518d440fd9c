//go:build !unix

package conformance

import "errors"

// FSizeRole is the value of APEXCHECK_ROLE that makes the kit's binary
// start the implementation under a file-size limit (Unix only).
const FSizeRole = "fsizelimit"

func (s *state) startFSize(limit int64, env []string) (*Client, error) {
	return nil, errors.New("impl start -fsize needs RLIMIT_FSIZE (Unix only)")
}

// FSizeMain fails: file-size limits are a Unix feature.
func FSizeMain() int { return 125 }

// fsizeSupported says whether this build can start the implementation under
// a file-size limit ([fsize]).
const fsizeSupported = false
