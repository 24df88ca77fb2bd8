package engine

import (
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Headers of the injected system contexts; each step's context starts
// with its own header and never contains another step's.
const (
	headerMessage  = domain.A2AHeaderMessage
	headerReply    = domain.A2AHeaderReply
	headerAnnounce = domain.A2AHeaderAnnounce
	announceText   = domain.A2AAnnounceText
)

func messageContext(requester, requesterChannel, target, targetChannel string) string {
	return strings.Join([]string{
		headerMessage,
		"The next user message was sent by another agent session through sessions_send, not typed by a human.",
		fmt.Sprintf("Requester session: %s (channel: %s).", requester, orDefault(requesterChannel, "unknown")),
		fmt.Sprintf("Target session: %s (channel: %s) — this session.", target, orDefault(targetChannel, "unknown")),
		"Answer it directly; your reply is returned to the requester.",
	}, "\n")
}

func replyContext(a a2aSpec, onRequester bool) string {
	who := "Agent 2 (target)"
	if onRequester {
		who = "Agent 1 (requester)"
	}
	return strings.Join([]string{
		headerReply,
		fmt.Sprintf("You are %s in an exchange between two agent sessions.", who),
		fmt.Sprintf("Turn %d of %d.", a.Turn, a.MaxTurns),
		fmt.Sprintf("Requester session: %s (channel: %s).", a.RequesterKey, orDefault(a.RequesterChannel, "unknown")),
		fmt.Sprintf("Target session: %s (channel: %s).", a.TargetKey, orDefault(a.TargetChannel, "unknown")),
		"The next user message is the other agent's latest reply. Reply to continue the exchange, or reply exactly " + ReplySkip + " to end it.",
	}, "\n")
}

func announceContext(a a2aSpec) string {
	return strings.Join([]string{
		headerAnnounce,
		fmt.Sprintf("Requester session: %s (channel: %s).", a.RequesterKey, orDefault(a.RequesterChannel, "unknown")),
		fmt.Sprintf("Target session: %s (channel: %s) — this session.", a.TargetKey, orDefault(a.TargetChannel, "unknown")),
		"Original request: " + a.Original,
		"Round 1 reply: " + orDefault(a.RoundOne, "(not available)."),
		"Latest reply: " + orDefault(a.Latest, "(not available)."),
		"Reply exactly " + AnnounceSkip + " to stay silent. Any other reply is posted to this session's channel (" + orDefault(a.TargetChannel, "unknown") + ").",
		"The exchange is over after this reply.",
	}, "\n")
}

// stepProvenance marks a step prompt switchboard wrote into an exchange
// (DESIGN §3b): kind a2a_step, never the sender's inter_session
// provenance. source is the other side of the exchange; prevRun the run
// whose end started the step.
func stepProvenance(step, source, sourceChannel, prevRun string) *domain.Provenance {
	return &domain.Provenance{Kind: domain.ProvenanceA2AStep, Step: step, SourceSessionKey: source,
		SourceChannel: sourceChannel, SourceRunID: prevRun}
}

// a2aFollowUp starts the next step of a sessions_send exchange after run
// (the primary run or a reply-back turn) ended.
func (e *Engine) a2aFollowUp(run domain.Run, spec runSpec, next func(domain.Run) (domain.Run, error)) error {
	a := *spec.A2A
	ok := run.Status == domain.RunOK && !silent(run.Reply)
	switch run.Kind {
	case domain.RunKindSend:
		if !ok {
			return nil // no reply: no reply-back and no announce
		}
		a.RoundOne, a.Latest = run.Reply, run.Reply
		if a.InRun && a.MaxTurns > 0 && a.RequesterKey != a.TargetKey {
			a.Turn = 1
			return e.startReplyTurn(run, a, spec.Chain, next)
		}
		return e.startAnnounce(run, a, next)
	case domain.RunKindReply:
		if ok {
			a.Latest = run.Reply
			if a.Turn < a.MaxTurns {
				a.Turn++
				return e.startReplyTurn(run, a, spec.Chain, next)
			}
		}
		return e.startAnnounce(run, a, next)
	}
	return nil
}

// startReplyTurn queues turn a.Turn: odd turns on the requester, even on
// the target; the message is the other side's latest reply.
func (e *Engine) startReplyTurn(prev domain.Run, a a2aSpec, chain []string, next func(domain.Run) (domain.Run, error)) error {
	onRequester := a.Turn%2 == 1
	session, other, otherChannel := a.TargetKey, a.RequesterKey, a.RequesterChannel
	if onRequester {
		session, other, otherChannel = a.RequesterKey, a.TargetKey, a.TargetChannel
	}
	spec := runSpec{
		UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(a.Latest),
			Provenance: stepProvenance(domain.A2AStepReply, other, otherChannel, prev.ID)},
		System: replyContext(a, onRequester),
		Chain:  chain,
		A2A:    &a,
	}
	raw, err := encodeSpec(spec)
	if err != nil {
		return err
	}
	_, err = next(domain.Run{SessionKey: session, AgentID: e.keys.AgentOf(session), Kind: domain.RunKindReply,
		Lane: domain.LaneNested, ParentRunID: prev.ID, RequesterKey: other, Message: a.Latest, Spec: raw,
		IdempotencyKey: fmt.Sprintf("a2a-turn:%s", prev.ID)})
	return err
}

// startAnnounce queues the announce step on the target.
func (e *Engine) startAnnounce(prev domain.Run, a a2aSpec, next func(domain.Run) (domain.Run, error)) error {
	spec := runSpec{
		UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(announceText),
			Provenance: stepProvenance(domain.A2AStepAnnounce, a.RequesterKey, a.RequesterChannel, prev.ID)},
		System: announceContext(a),
		A2A:    &a,
	}
	raw, err := encodeSpec(spec)
	if err != nil {
		return err
	}
	_, err = next(domain.Run{SessionKey: a.TargetKey, AgentID: e.keys.AgentOf(a.TargetKey), Kind: domain.RunKindAnnounce,
		Lane: domain.LaneNested, ParentRunID: prev.ID, RequesterKey: a.RequesterKey, Message: announceText, Spec: raw,
		IdempotencyKey: fmt.Sprintf("a2a-announce:%s", prev.ID)})
	return err
}
