package verdict

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/apexcheck/apexcheck/conformance/suite"
)

// Badge is a shields.io endpoint badge
// (https://shields.io/badges/endpoint-badge): serve the JSON file and point
// https://img.shields.io/endpoint?url=… at it.
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// Badge summarises the report: "P/T passed", then the failures, errors and
// skips that make up the rest, so that a skip never reads as a pass.
// Green when everything ran and passed; yellow-green when everything that
// ran passed but something was skipped; orange when every failure is
// expected by the ledger; red otherwise.
func (rep *Report) Badge() Badge {
	t := suite.Count(rep.Results)
	msg := fmt.Sprintf("%d/%d passed", t.Passed, t.Total())
	if t.Failed > 0 {
		msg += fmt.Sprintf(", %d failed", t.Failed)
	}
	if t.Errored > 0 {
		msg += fmt.Sprintf(", %d errored", t.Errored)
	}
	if t.Skipped > 0 {
		msg += fmt.Sprintf(", %d skipped", t.Skipped)
	}
	if t.Inconclusive > 0 {
		msg += fmt.Sprintf(", %d inconclusive", t.Inconclusive)
	}
	if rep.SetupError != nil {
		msg = "setup error"
	}
	color := "red"
	switch v := rep.Ledger.Evaluate(rep.Results); {
	case rep.SetupError != nil:
	case t.Failed+t.Errored == 0 && t.Inconclusive > 0:
		// No verdict: neither the green of a pass nor the red of a
		// failure.
		color = "lightgrey"
	case t.Failed+t.Errored == 0 && t.Skipped == 0:
		color = "brightgreen"
	case t.Failed+t.Errored == 0:
		color = "yellowgreen"
	case rep.Ledger != nil && v.OK():
		color = "orange"
	}
	label := "apexcheck " + rep.Kit
	if p := rep.Profile.OrDefault(); p != suite.Apex {
		// A core badge must not pass for a certification of the whole
		// contract.
		label += " " + string(p)
	}
	return Badge{SchemaVersion: 1, Label: label, Message: msg, Color: color}
}

// WriteBadge writes the badge JSON.
func (rep *Report) WriteBadge(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rep.Badge()); err != nil {
		return fmt.Errorf("write badge: %w", err)
	}
	return nil
}
