// Package verdict judges a finished run and tells it: the [Report] and its
// writers (JSON Lines, JUnit XML, Markdown, GitHub annotations, a badge)
// and its reader ([ReadReport]); the expectation [Ledger] of known
// failures; the [Certificate]; and [MergeReports], which joins the reports of
// shards into one run.
package verdict
