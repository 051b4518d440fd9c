// Package version holds the kit's version and the protocol-independent
// identity of the reference implementation.
package version

// Kit is the apexcheck version: the version of the runner, the spec and
// the scenario suite, which are released together.
const Kit = "0.1.0"
