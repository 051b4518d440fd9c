// Package output turns a command's output stream into what the model sees:
// the tail of the decoded text within 2000 lines and 51200 bytes, the
// truncation facts, the footers, and a file holding the complete raw stream
// when anything was cut (spec/output.md).
//
// The Accumulator keeps memory bounded however much a command prints: it
// never holds the whole stream, nor the whole of a huge last line, only a
// decoded tail window a few times the byte limit (OUT-25).
package output

import (
	"bytes"
	"strconv"
)

// The limits of OUT-1.
const (
	// DefaultMaxLines is the most lines the model sees.
	DefaultMaxLines = 2000
	// DefaultMaxBytes is the most UTF-8 bytes the model sees ("50KB").
	DefaultMaxBytes = 51200
)

// DefaultPrefix is the full-output file name prefix of the bash tool
// (OUT-21).
const DefaultPrefix = "apex-code-bash"

// The values of Result.TruncatedBy.
const (
	ByLines = "lines"
	ByBytes = "bytes"
)

// Result is the tail of a text as the model sees it (FACTS §3 fields,
// OUT-8).
type Result struct {
	// Content is the kept text: the whole text when nothing was cut,
	// otherwise the kept lines joined by "\n" with no trailing newline.
	Content string
	// Truncated reports whether the text passed either limit.
	Truncated bool
	// TruncatedBy is ByLines, ByBytes, or "" when not truncated (OUT-7).
	TruncatedBy string
	// TotalLines and TotalBytes count the whole text (OUT-2, OUT-3).
	TotalLines int
	TotalBytes int64
	// OutputLines and OutputBytes count Content.
	OutputLines int
	OutputBytes int
	// LastLinePartial is set when not even the last line fitted and only its
	// end is kept (OUT-6).
	LastLinePartial bool
	// MaxLines and MaxBytes are the limits applied.
	MaxLines, MaxBytes int
}

// TruncateTail keeps the tail of text within maxLines lines and maxBytes
// bytes, whichever is hit first (OUT-1 to OUT-7). A limit ≤ 0 selects its
// default. text is taken to be UTF-8; a partial line is cut at a character
// boundary only in the sense of OUT-6 (continuation bytes are skipped), so
// the result is valid UTF-8 whenever text is.
func TruncateTail(text string, maxLines, maxBytes int) Result {
	maxLines, maxBytes = limits(maxLines, maxBytes)
	b := []byte(text)
	return tailOf(b, true, countLines(b), int64(len(b)), maxLines, maxBytes)
}

func limits(maxLines, maxBytes int) (int, int) {
	if maxLines <= 0 {
		maxLines = DefaultMaxLines
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return maxLines, maxBytes
}

// countLines counts lines as OUT-3 does: every "\n" ends a line, and
// non-empty text after the last "\n" is one more.
func countLines(b []byte) int {
	n := bytes.Count(b, newline)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

var newline = []byte{'\n'}

// tailOf computes TruncateTail of a text T from a suffix of it, so that the
// Accumulator need not keep T. view is that suffix; complete reports whether
// view starts a line of T (it is all of T, or the byte before it is "\n").
// totalLines and totalBytes count all of T.
//
// The result equals TruncateTail(T) provided that view is all of T whenever
// T is within both limits, and otherwise, when view is not complete, that it
// holds more than maxBytes+1 bytes: then the incomplete first line of view
// can never be kept whole (the lines after it plus that line's visible part
// already pass the byte limit), and when it is the last line, its final
// maxBytes bytes are inside view. The Accumulator's window guarantees both.
func tailOf(view []byte, complete bool, totalLines int, totalBytes int64, maxLines, maxBytes int) Result {
	r := Result{
		TotalLines: totalLines,
		TotalBytes: totalBytes,
		MaxLines:   maxLines,
		MaxBytes:   maxBytes,
	}
	if totalLines <= maxLines && totalBytes <= int64(maxBytes) {
		// OUT-4: within both limits the text is kept as it is, trailing
		// newline included.
		r.Content = string(view)
		r.OutputLines = totalLines
		r.OutputBytes = len(view)
		return r
	}
	r.Truncated = true

	// OUT-5: the trailing newline does not start a line, so lines end at
	// end. Kept lines are consecutive, so the kept text is the span
	// view[from:end] and needs no joining.
	end := len(view)
	if end > 0 && view[end-1] == '\n' {
		end--
	}
	from, kept, keptBytes := end, 0, 0
	by := ByLines // upstream truncate.ts starts from "lines" (OUT-7)
	pos := end
	for kept < maxLines {
		start := bytes.LastIndexByte(view[:pos], '\n') + 1
		cost := pos - start
		if kept > 0 {
			cost++ // the "\n" joining this line to the kept ones
		}
		if keptBytes+cost > maxBytes {
			by = ByBytes
			if kept == 0 {
				// OUT-6: not even the last line fits; keep its last maxBytes
				// bytes, moved forward to a character boundary.
				cut := pos - maxBytes
				for cut < pos && view[cut]&0xC0 == 0x80 {
					cut++
				}
				from, kept, keptBytes = cut, 1, pos-cut
				r.LastLinePartial = true
			}
			break
		}
		from, kept, keptBytes = start, kept+1, keptBytes+cost
		if start == 0 {
			// The first line of view: with complete views that is the
			// first line of T and nothing precedes it. (An incomplete view
			// never gets here, see above.)
			break
		}
		pos = start - 1
	}
	// OUT-7: upstream names "lines" whenever the line limit was reached
	// within the byte limit, even if the walk stopped on bytes.
	if kept >= maxLines && keptBytes <= maxBytes {
		by = ByLines
	}
	r.TruncatedBy = by
	r.Content = string(view[from:end])
	r.OutputLines = kept
	r.OutputBytes = end - from
	return r
}

// FormatSize renders a byte count as the footers do (OUT-9): bytes below
// 1024, then KB and MB in binary units with one decimal and no space.
func FormatSize(n int64) string {
	switch {
	case n < 1024:
		return strconv.FormatInt(n, 10) + "B"
	case n < 1024*1024:
		// JavaScript's toFixed(1) rounds the exact value to nearest; n/1024
		// and n/1048576 are never exactly halfway between two tenths, so
		// Go's correctly rounded formatting gives the same digits.
		return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + "KB"
	default:
		return strconv.FormatFloat(float64(n)/(1024*1024), 'f', 1, 64) + "MB"
	}
}
