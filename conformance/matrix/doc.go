// Package matrix compares implementations: [Compare] lays the JSON Lines
// reports of several runs against the spec's clauses as a [Matrix], which
// it writes as Markdown and as an HTML page.
package matrix
