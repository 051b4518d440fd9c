// Package suite is the data the rest of the kit shares: a [Scenario] and
// the [Clause] values it proves, loaded from the scenario files and the
// spec; the [Profile] a run certifies; a [Shard] of the suite for a CI
// matrix; each scenario's [Outcome] and [Result] and their [Totals]; the
// suite [Digest] that certificates are pinned to; and the
// [ScenarioDigests] that pin each ledger entry to its scenario.
//
// It runs nothing and imports no other package of the kit: everything
// else builds on it.
package suite
