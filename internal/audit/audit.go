// Package audit is switchboard's tamper-evident audit log: an append-only
// chain of records, each carrying the SHA-256 of the one before, so an
// edited or deleted record is found by Verify with its position
// (docs/operations.md#audit-log).
//
// Records are appended by the stores (inside the transaction that makes
// the recorded action durable, where there is one) through TxAppender;
// everything else records through a Recorder.
package audit

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Kind names what a record records.
type Kind string

// Kinds of record. A kind is never renamed: verifiers and exports read it.
const (
	// KindMessage is an inter-session message: a sessions_send that starts
	// a turn of its target, a reply-back turn, an announce, a notify or a
	// steer.
	KindMessage Kind = "message"
	// KindSpawn is a sub-agent run created by sessions_spawn.
	KindSpawn Kind = "spawn"
	// KindRefusal is a call the gate refused (scope, binding, visibility,
	// send and spawn policy).
	KindRefusal Kind = "refusal"
	// KindBudgetStop is a run stopped by its budget.
	KindBudgetStop Kind = "budget_stop"
	// KindTokenUse is a credential's first use on a surface (per WS
	// connection; per token, surface and day over HTTP and MCP).
	KindTokenUse Kind = "token_use"
	// KindConfigReload is a configuration reload.
	KindConfigReload Kind = "config_reload"
	// KindAdmin is an administrative action: a session's patch, reset or
	// delete, a run's cancel, a pairing decision, a loop's resume.
	KindAdmin Kind = "admin"
	// KindLoopPause is an edge of the message graph the loop breaker
	// paused.
	KindLoopPause Kind = "loop_pause"
	// KindApproval is an operator's decision on a held call (approvals).
	KindApproval Kind = "approval"
)

// Kinds lists every kind, in the order the docs list them.
func Kinds() []Kind {
	return []Kind{KindMessage, KindSpawn, KindRefusal, KindBudgetStop, KindTokenUse,
		KindConfigReload, KindAdmin, KindLoopPause, KindApproval}
}

// Entry is what a caller records. The log stamps At when it is zero.
type Entry struct {
	// At is when it happened (Unix ms).
	At   int64 `json:"at"`
	Kind Kind  `json:"kind"`
	// Actor is who acted: a principal's name ("operator", a token's
	// name, "agent", "channel:<name>") or "system".
	Actor string `json:"actor,omitempty"`
	// Surface is where the call came in (ws, http, mcp, agent, ...), when
	// known.
	Surface string `json:"surface,omitempty"`
	// Op is the operation (an api.Op, or an event's name).
	Op string `json:"op,omitempty"`
	// Session is the session that acted (the requester), if any.
	Session string `json:"session,omitempty"`
	// Target is what was acted on: a session key, a token's name, an edge.
	Target  string `json:"target,omitempty"`
	RunID   string `json:"runId,omitempty"`
	AgentID string `json:"agentId,omitempty"`
	// ToolCallID is the agent's tool call, for a call made inside a run.
	ToolCallID string `json:"toolCallId,omitempty"`
	// Outcome is ok, refused, stopped, paused, or a decision.
	Outcome string `json:"outcome,omitempty"`
	// Detail is a short text: a refusal's message, a budget's bound.
	Detail string `json:"detail,omitempty"`
}

// Record is an Entry as the chain holds it.
type Record struct {
	// Seq is the record's position in the chain, from 1, without gaps.
	Seq int64 `json:"seq"`
	Entry
	// Prev is the hash of the record before (of the anchor for the first
	// record kept after a prune; "" for the very first).
	Prev string `json:"prev"`
	// Hash is Seal's digest of this record.
	Hash string `json:"hash"`
}

// Recorder records an entry. It is the one entry point for code outside
// the stores: approvals, the gateway, the CLI.
type Recorder interface {
	Record(ctx context.Context, e Entry) error
}

// Nop records nothing (the audit log is off).
type Nop struct{}

// Record does nothing.
func (Nop) Record(context.Context, Entry) error { return nil }

// maxField bounds a text field of a record: a record names what happened,
// it does not copy messages.
const maxField = 512

// Clip bounds each text field of e to maxField bytes (on a rune boundary),
// so a long refusal message or key cannot bloat the chain.
func (e Entry) Clip() Entry {
	for _, f := range []*string{&e.Actor, &e.Surface, &e.Op, &e.Session, &e.Target, &e.RunID,
		&e.AgentID, &e.ToolCallID, &e.Outcome, &e.Detail} {
		*f = clip(*f)
	}
	return e
}

func clip(s string) string {
	// Stored as text on every store: no NUL, valid UTF-8.
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", "\uFFFD"), "\uFFFD")
	if len(s) <= maxField {
		return s
	}
	cut := maxField
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
