package exchange

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// State carries one exchange through its steps. It is stored in the spec
// of every run of the exchange (its JSON names are a storage format: do
// not rename them).
type State struct {
	// RequesterKey is the session that called sessions_send.
	RequesterKey     string `json:"requesterKey"`
	RequesterChannel string `json:"requesterChannel,omitempty"`
	// TargetKey is the session the message was sent to.
	TargetKey     string `json:"targetKey"`
	TargetChannel string `json:"targetChannel,omitempty"`
	// TargetTo is the target's recipient on TargetChannel (its delivery
	// context's `to`, else its lastTo), where the announce is posted.
	TargetTo string `json:"targetTo,omitempty"`
	// InRun is true when the send came from a run of a switchboard agent;
	// only then do reply-back turns follow.
	InRun bool `json:"inRun"`
	// MaxTurns is session.agentToAgent.maxPingPongTurns when the exchange
	// started.
	MaxTurns int `json:"maxTurns"`
	// Turn is the reply-back turn of the run that carries this state (0
	// on the primary run).
	Turn int `json:"turn,omitempty"`
	// Original is the message the requester sent.
	Original string `json:"original"`
	// RoundOne is the target's first reply; Latest the latest reply of
	// either side.
	RoundOne string `json:"roundOne,omitempty"`
	Latest   string `json:"latest,omitempty"`
}

// Silent reports whether a reply says nothing: empty, or exactly one of
// the silence tokens REPLY_SKIP, ANNOUNCE_SKIP and NO_REPLY.
func Silent(reply string) bool {
	switch strings.TrimSpace(reply) {
	case "", domain.ReplySkip, domain.AnnounceSkip, domain.NoReply:
		return true
	}
	return false
}
