// Package verdict judges a finished run and tells it: the [Report] and its
// writers (JSON Lines, JUnit XML, Markdown, GitHub annotations, a badge)
// and its reader ([ReadReport]); the expectation [Ledger] of known
// failures; the [Certificate]; [MergeReports], which joins the reports of
// shards into one run; and [Judge], which decides whether a run or a merge
// conforms, so that both exit alike.
package verdict
