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
			" (line is " + FormatSize(s.LastLineBytes) + "). Full output: " + s.FullOutputPath + "]"
	case s.TruncatedBy == ByLines:
		return "[Showing lines " + s.lineRange() + ". Full output: " + s.FullOutputPath + "]"
	default:
		maxBytes := s.MaxBytes
		if maxBytes <= 0 {
			maxBytes = DefaultMaxBytes
		}
		return "[Showing lines " + s.lineRange() + " (" + FormatSize(int64(maxBytes)) +
			" limit). Full output: " + s.FullOutputPath + "]"
	}
}

// LinesFooter is the background-retrieval footer (OUT-14): always the
// by-lines form, without the separating blank line; "" when not truncated
// or when there is no file to point to.
func (s Snapshot) LinesFooter() string {
	if !s.Truncated || s.FullOutputPath == "" {
		return ""
	}
	return "[Showing lines " + s.lineRange() + ". Full output: " + s.FullOutputPath + "]"
}

// lineRange is "<start>-<end> of <total>" where start is the first kept
// line's number (OUT-12).
func (s Snapshot) lineRange() string {
	start := s.TotalLines - s.OutputLines + 1
	return strconv.Itoa(start) + "-" + strconv.Itoa(s.TotalLines) + " of " + strconv.Itoa(s.TotalLines)
}
