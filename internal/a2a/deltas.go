package a2a

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// replyStream turns a run's text deltas into updates of the reply
// artifact while the model produces it. Each model step streams into the
// same artifact: a step's first piece replaces what an earlier step sent
// (append false), its next pieces append. So when the run ends, what the
// client holds is the last step's text so far, and finish completes it
// with the rest of the reply (append true, lastChunk true) or, when the
// streamed text is not a prefix of the reply, replaces it whole. Because
// every delta carries the step's text so far, an event dropped under load
// leaves no gap: the next one sends what was missed.
type replyStream struct {
	runID string
	step  int
	// sent is the text the client holds for the artifact; started says
	// whether any piece was sent at all.
	sent    string
	started bool
}

// piece is the artifact update for one delta event, if it brings text.
func (r *replyStream) piece(d *domain.RunDelta) (wire.Artifact, bool, bool) {
	if d == nil || d.RunID != r.runID || d.Delta.Text == "" {
		return wire.Artifact{}, false, false
	}
	if r.started && d.Step < r.step {
		return wire.Artifact{}, false, false // a late event of an earlier step
	}
	appendTo := r.started && d.Step == r.step
	if appendTo && !strings.HasPrefix(d.Accumulated, r.sent) {
		appendTo = false
	}
	text := d.Accumulated
	if appendTo {
		text = d.Accumulated[len(r.sent):]
		if text == "" {
			return wire.Artifact{}, false, false // already sent (a duplicate)
		}
	}
	r.started, r.step, r.sent = true, d.Step, d.Accumulated
	return r.artifact(text), appendTo, true
}

// last is the final update of the reply artifact for the ended run's
// reply: the rest after what was streamed, or the whole reply.
func (r *replyStream) last(a wire.Artifact, reply string) (wire.Artifact, bool) {
	if !r.started || !strings.HasPrefix(reply, r.sent) {
		return a, false
	}
	out := r.artifact(reply[len(r.sent):])
	out.Name = a.Name
	return out, true
}

func (r *replyStream) artifact(text string) wire.Artifact {
	return wire.Artifact{ArtifactID: artifactID(r.runID), Name: "reply", Parts: []wire.Part{wire.TextPart(text)}}
}
