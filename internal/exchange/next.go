package exchange

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// FollowUp is a run the exchange starts after one of its runs ended. The
// engine stores it as a run whose spec carries Message, System, Chain and
// State.
type FollowUp struct {
	// Kind is domain.RunKindReply (a reply-back turn) or
	// domain.RunKindAnnounce (the announce step).
	Kind domain.RunKind
	// Lane is the runtime lane; exchange steps are nested work.
	Lane domain.Lane
	// SessionKey is the session the step runs in; RequesterKey the other
	// side of the exchange.
	SessionKey   string
	RequesterKey string
	// ParentRunID is the run whose end started this step.
	ParentRunID string
	// IdempotencyKey makes writing the step twice (a retried hook) one run.
	IdempotencyKey string
	// Message is the step prompt, with a2a_step provenance: switchboard
	// wrote it, not the other side.
	Message domain.Message
	// System is the step's injected context (its header first).
	System string
	// Chain is the loop-safety chain carried on.
	Chain []string
	// State is the exchange's state as the step sees it.
	State State
}

// Text is the follow-up's user message as plain text (the run's Message).
func (f FollowUp) Text() string { return f.Message.Content.Text() }

// Steps is what follows a run of an exchange: runs to start, or the
// announce's reply to post to the target's channel, or nothing.
type Steps struct {
	Runs []FollowUp
	// Post is the outbox item delivering the announce reply (without its
	// timestamps, which the writer sets).
	Post *domain.OutboxItem
}

// Next is the exchange's state machine: given the state stored on the run
// that ended (and its loop-safety chain), it says what follows.
//
//   - The primary run (kind send) without a reply (failed, or silent)
//     ends the exchange. With one, reply-back turns follow when the send
//     came from a run, turns are allowed and the two sessions differ;
//     otherwise the announce step does.
//   - A reply-back turn that replied starts the next turn, until MaxTurns;
//     a silent or failed turn, or the last one, leads to the announce.
//     Odd turns run on the requester, even turns on the target; each turn's
//     message is the other side's latest reply.
//   - The announce step posts its reply to the target's channel unless it
//     failed or is silent (ANNOUNCE_SKIP).
//
// Runs of other kinds have no follow-up.
func Next(s State, chain []string, ended domain.Run) Steps {
	ok := ended.Status == domain.RunOK && !Silent(ended.Reply)
	switch ended.Kind {
	case domain.RunKindSend:
		if !ok {
			return Steps{}
		}
		s.RoundOne, s.Latest = ended.Reply, ended.Reply
		if s.InRun && s.MaxTurns > 0 && s.RequesterKey != s.TargetKey {
			s.Turn = 1
			return Steps{Runs: []FollowUp{replyTurn(ended.ID, s, chain)}}
		}
		return Steps{Runs: []FollowUp{announceStep(ended.ID, s)}}
	case domain.RunKindReply:
		if ok {
			s.Latest = ended.Reply
			if s.Turn < s.MaxTurns {
				s.Turn++
				return Steps{Runs: []FollowUp{replyTurn(ended.ID, s, chain)}}
			}
		}
		return Steps{Runs: []FollowUp{announceStep(ended.ID, s)}}
	case domain.RunKindAnnounce:
		if !ok {
			return Steps{}
		}
		return Steps{Post: announcePost(ended, s)}
	}
	return Steps{}
}

// replyTurn is turn s.Turn, after run prev.
func replyTurn(prev string, s State, chain []string) FollowUp {
	onRequester := s.Turn%2 == 1
	session, other, otherChannel := s.TargetKey, s.RequesterKey, s.RequesterChannel
	if onRequester {
		session, other, otherChannel = s.RequesterKey, s.TargetKey, s.TargetChannel
	}
	return FollowUp{
		Kind: domain.RunKindReply, Lane: domain.LaneNested,
		SessionKey: session, RequesterKey: other, ParentRunID: prev,
		IdempotencyKey: "a2a-turn:" + prev,
		Message: domain.Message{Role: domain.RoleUser, Content: domain.TextContent(s.Latest),
			Provenance: StepProvenance(domain.A2AStepReply, other, otherChannel, prev)},
		System: ReplyContext(s, onRequester),
		Chain:  chain,
		State:  s,
	}
}

// announceStep is the announce step on the target, after run prev.
func announceStep(prev string, s State) FollowUp {
	return FollowUp{
		Kind: domain.RunKindAnnounce, Lane: domain.LaneNested,
		SessionKey: s.TargetKey, RequesterKey: s.RequesterKey, ParentRunID: prev,
		IdempotencyKey: "a2a-announce:" + prev,
		Message: domain.Message{Role: domain.RoleUser, Content: domain.TextContent(domain.A2AAnnounceText),
			Provenance: StepProvenance(domain.A2AStepAnnounce, s.RequesterKey, s.RequesterChannel, prev)},
		System: AnnounceContext(s),
		State:  s,
	}
}

// announcePost is the outbox item that posts an announce reply.
func announcePost(run domain.Run, s State) *domain.OutboxItem {
	payload, err := json.Marshal(map[string]string{"text": strings.TrimSpace(run.Reply), "requesterSessionKey": s.RequesterKey})
	if err != nil {
		panic(fmt.Sprintf("exchange: marshal announce payload: %v", err)) // a map of strings always marshals
	}
	return &domain.OutboxItem{
		IdempotencyKey: "announce:" + run.ID, Kind: domain.OutboxAnnounce, SessionKey: run.SessionKey, RunID: run.ID,
		Channel: s.TargetChannel, To: s.TargetTo, Payload: payload, Status: domain.OutboxPending,
	}
}
