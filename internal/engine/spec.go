package engine

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// runSpec is what the engine keeps on a run so the run, and the work that
// follows it, can be carried out after a restart.
type runSpec struct {
	// UserMessage is read by the runtime (runtime.Spec).
	UserMessage *domain.Message `json:"userMessage,omitempty"`
	// System is injected after the agent's system prompt.
	System   string `json:"system,omitempty"`
	Model    string `json:"model,omitempty"`
	Thinking string `json:"thinking,omitempty"`
	// Chain lists the sessions an inter-session message passed through
	// before reaching this run (loop safety).
	Chain []string   `json:"chain,omitempty"`
	A2A   *a2aSpec   `json:"a2a,omitempty"`
	Spawn *spawnSpec `json:"spawn,omitempty"`
	// Fingerprint digests the parameters that define the work of a run
	// created under an idempotency key (see idempotency.go).
	Fingerprint string `json:"fingerprint,omitempty"`
}

// a2aSpec carries a sessions_send exchange through its steps.
type a2aSpec struct {
	RequesterKey     string `json:"requesterKey"`
	RequesterChannel string `json:"requesterChannel,omitempty"`
	TargetKey        string `json:"targetKey"`
	TargetChannel    string `json:"targetChannel,omitempty"`
	// InRun is true when the send came from a run of a switchboard agent;
	// only then do reply-back turns follow.
	InRun    bool   `json:"inRun"`
	MaxTurns int    `json:"maxTurns"`
	Turn     int    `json:"turn,omitempty"`
	Original string `json:"original"`
	RoundOne string `json:"roundOne,omitempty"`
	Latest   string `json:"latest,omitempty"`
}

func encodeSpec(s runSpec) (json.RawMessage, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode run spec: %w", err)
	}
	return b, nil
}

// decodeSpec reads the spec stored on r. A spec that does not decode is
// an error naming the run: a run is never carried out, or followed up, on
// a zero spec.
func decodeSpec(r domain.Run) (runSpec, error) {
	var s runSpec
	if len(r.Spec) > 0 {
		if err := json.Unmarshal(r.Spec, &s); err != nil {
			return runSpec{}, fmt.Errorf("run %s: stored run spec does not decode: %w", r.ID, err)
		}
	}
	return s, nil
}

// Silent replies: an agent answering exactly one of these says nothing.
const (
	ReplySkip    = domain.ReplySkip
	AnnounceSkip = domain.AnnounceSkip
	NoReply      = domain.NoReply
)

// silent reports whether a reply is empty or a silence token.
func silent(reply string) bool {
	switch strings.TrimSpace(reply) {
	case "", ReplySkip, AnnounceSkip, NoReply:
		return true
	}
	return false
}
