package runs

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// deltaFunc is the OnDelta of one model call of run: each text or
// tool-call piece becomes an EventDelta for live clients, carrying the
// step's text so far. Reasoning pieces are not published (they are
// stored with the message like any thinking block). Nothing is stored
// here: the message is stored once, whole, when the call returns.
// showStart publishes the run's start (once) before its first delta.
func (rt *Runtime) deltaFunc(run domain.Run, step int, showStart func()) domain.DeltaFunc {
	var text strings.Builder
	return func(d domain.ModelDelta) {
		if d.Text == "" && d.ToolCall == nil {
			return
		}
		showStart()
		text.WriteString(d.Text)
		rt.opts.Emit(domain.Event{Kind: domain.EventDelta, SessionKey: run.SessionKey, TS: rt.now(),
			Delta: &domain.RunDelta{RunID: run.ID, Step: step, Delta: d, Accumulated: text.String()}})
	}
}
