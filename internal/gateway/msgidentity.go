package gateway

import (
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// openclawMeta is OpenClaw's `__openclaw` on a transcript message: the
// stored message's identity, as OpenClaw's gateway attaches it to the
// messages of chat.history and session.message and as its Control UI
// reads it. With it the UI recognizes the stored copy of the message it
// sent and of the reply it streamed and replaces its own copies; without
// it the UI shows both, and keeps "Sending message..." because it never
// sees its message taken.
type openclawMeta struct {
	// ID is the stored message's id (OpenClaw's transcript entry id).
	ID string `json:"id,omitempty"`
	// IdempotencyKey is "<run>:user" on the user message that started a
	// run: OpenClaw stores the input of a run under that key, and the UI
	// finds its sent message by it.
	IdempotencyKey string `json:"idempotencyKey,omitempty"`
	// RunID names the run that wrote the message (an assistant message or
	// a tool result), by the name its events carry.
	RunID string `json:"runId,omitempty"`
	// Seq is the message's place in the transcript (1, 2, …).
	Seq int64 `json:"seq,omitempty"`
}

// runUserKey is the idempotency key OpenClaw gives the user message that
// starts run runID.
func runUserKey(runID string) string { return runID + ":user" }

// messageMeta is m's identity; runName is the name m's run goes by on
// this connection's events ("" for a message no run wrote).
func messageMeta(m domain.Message, id, runName string) *openclawMeta {
	meta := &openclawMeta{ID: id, Seq: m.Seq}
	if runName != "" {
		if m.Role == domain.RoleUser {
			meta.IdempotencyKey = runUserKey(runName)
		} else {
			meta.RunID = runName
		}
	}
	if *meta == (openclawMeta{}) {
		return nil
	}
	return meta
}

// identifiedMessage is a chat.history message with OpenClaw's identity
// beside switchboard's own fields (its `id` stays).
type identifiedMessage struct {
	api.HistoryMessage
	OpenClaw *openclawMeta `json:"__openclaw,omitempty"`
}

// identifiedMessages gives each history message its identity; runs are
// named as their events name them (runAliases).
func (s *Server) identifiedMessages(msgs []api.HistoryMessage) []identifiedMessage {
	out := make([]identifiedMessage, len(msgs))
	for i, m := range msgs {
		var run string
		if m.RunID != "" {
			run = s.aliases.name(m.RunID)
		}
		out[i] = identifiedMessage{HistoryMessage: m, OpenClaw: messageMeta(m.Message, m.ID, run)}
	}
	return out
}

// runFinals holds, per run, the run's last stored assistant answer (no
// tool calls) that the fan-out saw, so the run's chat final can carry the
// stored message's identity: the run's end event does not name it, and
// the runtime publishes the final message just before the end.
type runFinals map[string]*domain.Message

// maxRunFinals bounds the runs held whose end never reaches this gateway
// (another replica ran them): past it, the map starts again.
const maxRunFinals = 100_000

// observe records ev's message when it is a run's answer.
func (f runFinals) observe(ev domain.Event) {
	m := ev.Message
	if ev.Kind != domain.EventMessage || m == nil || m.RunID == "" || m.Role != domain.RoleAssistant || m.ID == "" ||
		len(m.Content.ToolCalls()) > 0 {
		return
	}
	if len(f) >= maxRunFinals {
		clear(f)
	}
	f[m.RunID] = m
}

// take returns and forgets the answer of run r when its text is r's
// reply (the one the chat final carries), else nil.
func (f runFinals) take(r domain.Run) *domain.Message {
	m, ok := f[r.ID]
	if !ok {
		return nil
	}
	delete(f, r.ID)
	if m.Content.Text() != r.Reply {
		return nil
	}
	return m
}
