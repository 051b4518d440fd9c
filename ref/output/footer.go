package output

import "strconv"

// Text formats a finished foreground result as the seed's formatOutput does
// (OUT-10): the content, or emptyText when there is none (exec.md fixes
// which), then, when the output was truncated, a blank line and the footer.
func (s Snapshot) Text(emptyText string) string {
	text := s.Content
	if text == "" {
		text = emptyText
	}
	if s.Truncated {
		text += "\n\n" + s.Footer()
	}
	return text
}

// Footer is the foreground footer of a truncated result (OUT-11 to OUT-13),
// without the blank line that separates it from the content; "" when not
// truncated.
func (s Snapshot) Footer() string {
	if !s.Truncated {
		return ""
	}
	end := s.TotalLines
	switch {
	case s.LastLinePartial:
		return "[Showing last " + FormatSize(int64(s.OutputBytes)) + " of line " + strconv.Itoa(end) +
			" (line is " + FormatSize(s.LastLineBytes) + "). " + s.fullOutput() + "]"
	case s.TruncatedBy == ByLines:
		return "[Showing lines " + s.lineRange() + ". " + s.fullOutput() + "]"
	default:
		maxBytes := s.MaxBytes
		if maxBytes <= 0 {
			maxBytes = DefaultMaxBytes
		}
		return "[Showing lines " + s.lineRange() + " (" + FormatSize(int64(maxBytes)) +
			" limit). " + s.fullOutput() + "]"
	}
}

// NoFullOutput ends a foreground footer in place of "Full output: <path>"
// when there is no complete full-output file to name (OUT-33).
const NoFullOutput = "Full output could not be saved"

// fullOutput is the end of a foreground footer: the file's path, or, when
// the file could not be created or written, words that send the model to
// no file at all (OUT-33) rather than to a path that holds nothing.
func (s Snapshot) fullOutput() string {
	if s.FullOutputPath == "" {
		return NoFullOutput
	}
	return "Full output: " + s.FullOutputPath
}

// LinesFooter is the background-retrieval footer (OUT-14): always the
// by-lines form, without the separating blank line; "" when not truncated.
// Without a file to point to it still says the text was cut, ending as the
// foreground footer does (OUT-33): a cut the model is not told of is what
// OUT-34 forbids.
func (s Snapshot) LinesFooter() string {
	if !s.Truncated {
		return ""
	}
	return "[Showing lines " + s.lineRange() + ". " + s.fullOutput() + "]"
}

// lineRange is "<start>-<end> of <total>" where start is the first kept
// line's number (OUT-12).
func (s Snapshot) lineRange() string {
	start := s.TotalLines - s.OutputLines + 1
	return strconv.Itoa(start) + "-" + strconv.Itoa(s.TotalLines) + " of " + strconv.Itoa(s.TotalLines)
}
