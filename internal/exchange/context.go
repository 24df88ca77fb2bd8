package exchange

import (
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// MessageContext is the context injected into the target's primary run:
// the next user message came from another session, not a person.
func MessageContext(requester, requesterChannel, target, targetChannel string) string {
	return strings.Join([]string{
		domain.A2AHeaderMessage,
		"The next user message was sent by another agent session through sessions_send, not typed by a human.",
		fmt.Sprintf("Requester session: %s (channel: %s).", requester, orUnknown(requesterChannel)),
		fmt.Sprintf("Target session: %s (channel: %s) — this session.", target, orUnknown(targetChannel)),
		"Answer it directly; your reply is returned to the requester.",
	}, "\n")
}

// ReplyContext is the context of a reply-back turn, on the requester
// (Agent 1) or on the target (Agent 2).
func ReplyContext(s State, onRequester bool) string {
	who := "Agent 2 (target)"
	if onRequester {
		who = "Agent 1 (requester)"
	}
	return strings.Join([]string{
		domain.A2AHeaderReply,
		fmt.Sprintf("You are %s in an exchange between two agent sessions.", who),
		fmt.Sprintf("Turn %d of %d.", s.Turn, s.MaxTurns),
		fmt.Sprintf("Requester session: %s (channel: %s).", s.RequesterKey, orUnknown(s.RequesterChannel)),
		fmt.Sprintf("Target session: %s (channel: %s).", s.TargetKey, orUnknown(s.TargetChannel)),
		"The next user message is the other agent's latest reply. Reply to continue the exchange, or reply exactly " + domain.ReplySkip + " to end it.",
	}, "\n")
}

// AnnounceContext is the context of the announce step on the target.
func AnnounceContext(s State) string {
	return strings.Join([]string{
		domain.A2AHeaderAnnounce,
		fmt.Sprintf("Requester session: %s (channel: %s).", s.RequesterKey, orUnknown(s.RequesterChannel)),
		fmt.Sprintf("Target session: %s (channel: %s) — this session.", s.TargetKey, orUnknown(s.TargetChannel)),
		"Original request: " + s.Original,
		"Round 1 reply: " + orDefault(s.RoundOne, "(not available)."),
		"Latest reply: " + orDefault(s.Latest, "(not available)."),
		"Reply exactly " + domain.AnnounceSkip + " to stay silent. Any other reply is posted to this session's channel (" + orUnknown(s.TargetChannel) + ").",
		"The exchange is over after this reply.",
	}, "\n")
}

// StepProvenance marks a step prompt switchboard wrote into an exchange
// (docs/design.md#the-reply-back-loop-and-the-announce-step): kind a2a_step, never the sender's inter_session
// provenance. source is the other side of the exchange; prevRun the run
// whose end started the step.
func StepProvenance(step, source, sourceChannel, prevRun string) *domain.Provenance {
	return &domain.Provenance{Kind: domain.ProvenanceA2AStep, Step: step, SourceSessionKey: source,
		SourceChannel: sourceChannel, SourceRunID: prevRun}
}

func orUnknown(s string) string { return orDefault(s, "unknown") }

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
