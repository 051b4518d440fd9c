// Package bench holds the end-to-end benchmarks of the reference tool that
// `make bench` prints: they measure whole tool calls, shell and pipes
// included, against the same commands run without the tool, in the same
// run. They print ratios and memory figures and never assert on time.
package bench
