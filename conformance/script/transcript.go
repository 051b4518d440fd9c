package script

import (
	"os"

	"github.com/apexcheck/apexcheck/conformance/client"
)

// clientOptions are the options every implementation of the scenario
// starts with: the run's tracker, and the scenario's transcript when the
// run keeps them.
func (s *state) clientOptions() client.Options {
	return client.Options{Tracker: s.cfg.Tracker, Transcript: s.transcript()}
}

// transcript returns the scenario's transcript, opening its file on first
// use, or nil when the run keeps none or the file cannot be made (the
// transcript is evidence; the scenario runs without it).
func (s *state) transcript() *client.Transcript {
	if !s.cfg.Transcripts {
		return nil
	}
	if s.rec == nil {
		f, err := os.Create(s.ts.Getenv("WORK") + TranscriptSuffix)
		if err != nil {
			s.ts.Logf("no transcript: %v", err)
			return nil
		}
		s.ts.Defer(func() { f.Close() })
		s.rec = client.NewTranscript(f)
	}
	return s.rec
}
