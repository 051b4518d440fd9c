// Package script is the scenario command language: the testscript
// commands scenarios use ([Commands]: impl, call, field, text, tty, clock,
// …) and the conditions they test ([cap:NAME], [has:PROG], [userns], …),
// with the state each scenario keeps (its implementation, its calls, the
// last response). spec/INTERPRETING.md documents every command.
//
// [Config.Params] gives testscript everything it needs to run scenario
// files; the runner (package conformance) only adds the files and
// collects their outcomes.
package script
