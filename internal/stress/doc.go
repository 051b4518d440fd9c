// Package stress holds the runner's lifecycle stress test: thousands of
// start → handshake → call → shutdown cycles against the reference and
// against minimal implementations that end in the ways most likely to
// lose a final response (exiting the moment it is written, flushing it
// only on the way out, closing stdout before exiting). A conformant
// implementation must never be reported as broken by the runner itself.
//
// `go test ./internal/stress` runs a short version; `make stress` runs a
// long one and prints the count and the spurious-error rate.
package stress
