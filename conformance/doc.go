// Package conformance runs apexcheck's scenarios against an implementation
// of the bash tool over the wire protocol, and collects their outcomes.
//
// It is used by `go test` ([Test]) and by the apexcheck command ([Run])
// alike. Data flows one way: scenarios drive a protocol client, the client
// drives the implementation, outcomes become [suite.Result] values, and
// the packages above judge and show them.
//
// # Layout
//
// The kit is split by what changes together, in layers; a package imports
// only packages below it, and none imports this one:
//
//	conformance           the runner: Config, Run, Test, Handshake (this package)
//	conformance/matrix    compare runs of several implementations: the matrix, as Markdown and HTML
//	conformance/verdict   reports in every format, the expectation ledger, the certificate,
//	                      merging shard reports, and Judge, which decides a run's exit status
//	conformance/script    the scenario command language (impl, call, field, tty, …) and the
//	                      per-scenario state it keeps; spec/INTERPRETING.md documents it
//	conformance/validate  checking an implementation's messages against the protocol schema
//	conformance/client    the protocol client: starting an implementation, the handshake,
//	                      requests and responses, and the Tracker of what a run started
//	conformance/suite     the data everything shares: scenarios, clauses, profiles, shards,
//	                      outcomes and results, the suite digest
//
// Why these seams: a new scenario command changes script alone; a new
// report format or ledger rule changes verdict alone; a protocol change
// reaches client (and the commands that speak it); suite changes only
// when the shape of a scenario or a clause does. The runner stays small
// because it only wires script's commands to testscript and collects
// results. Two seams were cut at the mechanism rather than by exporting
// helpers: script has its own Config (what commands need of a run) so that
// it does not import the runner, and the processes a run starts are
// tracked by a [client.Tracker] value that the caller owns, not by a
// global, so that the CLI's signal handler interrupts exactly its run.
//
// Reading a report back ([verdict.ReadReport]) sits beside writing it, so
// the matrix, which reads reports of many runs, depends on verdict and
// never on the JSON encoding.
package conformance
