package openclawimport

import (
	"fmt"
	"slices"
	"strings"
)

// Reasons counted in Summary.Skipped. Sessions skipped for a reason are
// not written; a session whose transcript is missing or unreadable is
// written without messages and counted too. Skipped transcript lines are
// counted as "line: <reason>".
const (
	reasonUnchanged       = "unchanged"
	reasonStoreAhead      = "store has more messages"
	reasonSessionIDDiffer = "store has a newer sessionId"
	reasonInvalidEntry    = "invalid entry"
	reasonInvalidKey      = "invalid key"
	reasonDuplicateKey    = "duplicate key"
	reasonStoreRejected   = "store rejected"
	reasonNoTranscript    = "transcript missing"
	reasonBadTranscript   = "transcript unreadable"
	linePrefix            = "line: "
)

// Summary says what Import did.
type Summary struct {
	// Agents counts agents with a sessions.json.
	Agents int
	// Sessions counts sessions written (new, or with messages added).
	Sessions int
	// SessionsSkipped counts sessions left alone: already imported,
	// invalid, or in conflict with the store (see Skipped).
	SessionsSkipped int
	// Messages counts messages written.
	Messages int
	// LinesSkipped counts transcript lines that could not be parsed.
	LinesSkipped int
	// Skipped counts by reason everything skipped or missing.
	Skipped map[string]int
	// Warnings describes problems worth a look, the first ones verbatim.
	Warnings []string
	// Largest is the key of the imported session with the longest
	// transcript (active branch) and LargestMessages its length, counting
	// sessions already imported by an earlier run too. The store benchmark
	// reads its history.
	Largest         string
	LargestMessages int
	// warningsDropped counts warnings beyond the first maxWarnings.
	warningsDropped int
}

func newSummary() Summary { return Summary{Skipped: make(map[string]int)} }

// skip counts a skipped session and records why.
func (s *Summary) skip(reason, warning string) {
	s.SessionsSkipped++
	s.Skipped[reason]++
	if warning != "" {
		s.warn(warning)
	}
}

func (s *Summary) warn(w string) {
	if len(s.Warnings) < maxWarnings {
		s.Warnings = append(s.Warnings, w)
		return
	}
	s.warningsDropped++
}

// String renders the summary for the CLI.
func (s Summary) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "imported %d sessions and %d messages from %d agents", s.Sessions, s.Messages, s.Agents)
	if s.SessionsSkipped > 0 {
		fmt.Fprintf(&b, "; %d sessions skipped", s.SessionsSkipped)
	}
	if s.LinesSkipped > 0 {
		fmt.Fprintf(&b, "; %d transcript lines skipped", s.LinesSkipped)
	}
	b.WriteByte('\n')
	reasons := make([]string, 0, len(s.Skipped))
	for r := range s.Skipped {
		reasons = append(reasons, r)
	}
	slices.Sort(reasons)
	for _, r := range reasons {
		fmt.Fprintf(&b, "  %-28s %d\n", r+":", s.Skipped[r])
	}
	if len(s.Warnings) > 0 {
		b.WriteString("warnings:\n")
		for _, w := range s.Warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
		if s.warningsDropped > 0 {
			fmt.Fprintf(&b, "  … and %d more\n", s.warningsDropped)
		}
	}
	return b.String()
}
