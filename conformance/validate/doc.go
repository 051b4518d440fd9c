// Package validate checks an implementation's messages against the
// protocol's JSON Schema (spec/protocol.schema.json): [ParseSchema] reads
// the subset of JSON Schema the protocol uses, and [Run] drives an
// implementation through canned exchanges and checks every message both
// ways.
package validate
