package send

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/exchange"
	"github.com/switchboard-go/switchboard/internal/idempotency"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"
	"github.com/switchboard-go/switchboard/internal/sessions"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// Send delivers a message into another session as an inter-session
// message, and waits for the reply unless TimeoutSeconds is 0.
// p.IdempotencyKey is already scoped to the caller (the engine's gate).
func (sd *Sender) Send(ctx context.Context, req Caller, p api.SendRequest) (api.SendResult, error) {
	// A refused send has no run: its answer carries no runId.
	fail := func(status, msg, key string) api.SendResult {
		return api.SendResult{Status: status, Error: msg, SessionKey: key}
	}
	if strings.TrimSpace(p.Message) == "" {
		return api.SendResult{}, domain.Invalid("message required")
	}
	mode, err := sendMode(p)
	if err != nil {
		return api.SendResult{}, err
	}
	if err := api.MessageChars.CheckChars(p.Message); err != nil {
		return api.SendResult{}, err
	}
	if p.TimeoutSeconds != nil {
		n, err := api.SendTimeout.Apply(int64(*p.TimeoutSeconds))
		if err != nil {
			return api.SendResult{}, err
		}
		t := int(n)
		p.TimeoutSeconds = &t
	}
	requesterKey, requesterAgent := req.Key, req.Agent
	g := sd.reads.GuardFor(ctx, req.viewer())
	var target string
	switch {
	case p.SessionKey != "" && p.Label != "":
		return fail("error", "Provide either sessionKey or label (not both).", ""), nil
	case p.SessionKey == "" && p.Label == "":
		return fail("error", "Either sessionKey or label is required", ""), nil
	case p.Label != "":
		key, res, ok := sd.findLabel(ctx, req, g, p.Label, p.AgentID)
		if !ok {
			return res, nil
		}
		target = key
	default:
		key, err := sd.sessions.Resolve(ctx, req.viewer(), p.SessionKey)
		if err != nil {
			return fail(statusOf(err), domain.ErrorMessage(err), ""), nil
		}
		target = key
	}
	display := sd.keys.Display(target, requesterAgent)
	idem := ""
	if p.IdempotencyKey != "" {
		idem = "send:" + p.IdempotencyKey
	}
	work := idempotency.SendWork{Target: target, Message: p.Message}
	if mode == api.SendSteer {
		work.Mode = mode
	}
	fingerprint := api.Fingerprint(work)
	if prior, found, err := idempotency.Prior(ctx, sd.store, idem, fingerprint); err != nil || found {
		if err != nil {
			return api.SendResult{}, err
		}
		return sd.sendAnswer(ctx, prior, display, p.TimeoutSeconds, req.RunID != "")
	}
	targetAgent := sd.keys.AgentOf(target)
	if err := g.Check(ctx, target, policy.ActionSend); err != nil {
		return fail(statusOf(err), domain.ErrorMessage(err), display), nil
	}

	// Loop safety: a chain of sends carries the sessions it went through.
	var chain []string
	if req.RunID != "" {
		r, err := sd.store.GetRun(ctx, req.RunID)
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return api.SendResult{}, err
		}
		if err == nil {
			spec, err := runspec.Decode(r)
			if err != nil {
				return api.SendResult{}, err
			}
			next, refused := exchange.Extend(spec.Chain, requesterKey, target, display, sd.cfg.Session.AgentToAgent.MaxHops)
			if refused != "" {
				return fail("error", refused, display), nil
			}
			chain = next
		}
	}

	// Send policy of the target (its row, or the row it would get).
	facts, targetRow, err := sd.sessions.FactsRow(ctx, target)
	if err != nil {
		return fail("error", domain.ErrorMessage(err), display), nil
	}
	if d := policy.SendPolicy(sd.conf().Session.SendPolicy, facts); !d.Allow {
		sd.log.Info("send blocked by session policy", "target", target, "reason", d.Reason)
		return fail("error", "send blocked by session policy", display), nil
	}
	if err := sd.guards.Admit(requesterKey, target); err != nil {
		return api.SendResult{}, err
	}
	if res, held, err := sd.guards.HoldOnLoop(ctx, req.RunID, requesterKey, target, display, chain, p.Message); held || err != nil {
		return res, err
	}
	if req.Hold != nil {
		if res, held, err := req.Hold(ctx, p, target, display, facts.Channel, facts.ChatType); held || err != nil {
			return res, err
		}
	}
	if mode == api.SendNotify {
		if sd.sessions.IsRemote(targetAgent) {
			// A2A has no message that starts no task: a notify would stay
			// in the local record and never reach the remote agent.
			return fail("error", fmt.Sprintf("mode %q cannot reach remote agent %q (an A2A message always starts a task); use followup", api.SendNotify, targetAgent), display), nil
		}
		return sd.notify(ctx, req, target, display, p.Message)
	}

	requesterChannel := ""
	if s, err := sd.store.GetSession(ctx, requesterKey); err == nil {
		requesterChannel = sessions.ChannelOf(s)
	}
	targetChannel := facts.Channel
	if targetChannel == "" {
		targetChannel = "unknown"
	}
	// The announce is posted where the target's conversation lives: its
	// recipient on its channel (OpenClaw's announce step, the announce's `send
	// {to, channel}`).
	targetTo := ""
	if targetRow != nil {
		targetTo = delivery.RecipientOn(*targetRow, targetChannel)
	}
	maxTurns := sd.cfg.Session.AgentToAgent.MaxPingPongTurns
	spec := runspec.Spec{
		Spec: runs.Spec{
			UserMessage: &domain.Message{
				Role:    domain.RoleUser,
				Content: domain.TextContent(p.Message),
				Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, SourceSessionKey: requesterKey,
					SourceChannel: requesterChannel, SourceTool: api.ToolSessionsSend, SourceRunID: req.RunID},
			},
			Steer: mode == api.SendSteer,
			Payer: sd.payer(ctx, requesterKey, req.RunID),
		},
		System: exchange.MessageContext(requesterKey, requesterChannel, target, targetChannel),
		Chain:  chain,
		A2A: &exchange.State{RequesterKey: requesterKey, RequesterChannel: requesterChannel, TargetKey: target,
			TargetChannel: targetChannel, TargetTo: targetTo, InRun: req.RunID != "", MaxTurns: maxTurns, Original: p.Message},
		Fingerprint: fingerprint,
		TraceParent: tracing.Root(ctx, "sessions_send"),
	}
	var timeoutMs int64
	if sd.sessions.IsRemote(targetAgent) {
		// A remote agent (the engine's remote agents): its reply is the exchange; the
		// injected context and the reply-back and announce steps stay
		// local, so neither the context nor the exchange state is kept.
		spec.System, spec.A2A = "", nil
		timeoutMs = sessions.RemoteRunTimeout().Milliseconds()
		// A remote run is one A2A exchange with no steps to join between:
		// a steer to a remote agent is a followup.
		spec.Steer = false
	}
	rawSpec, err := runspec.Encode(spec)
	if err != nil {
		return api.SendResult{}, err
	}
	created := false
	run, fresh, err := sd.rt.Submit(ctx, domain.Run{
		SessionKey: target, AgentID: targetAgent, Kind: domain.RunKindSend, Lane: domain.LaneNested,
		ParentRunID: req.RunID, RequesterKey: requesterKey, IdempotencyKey: idem,
		Message: p.Message, Spec: rawSpec, TimeoutMs: timeoutMs,
	}, func(tx domain.Tx) error {
		var err error
		_, created, err = sd.sessions.Ensure(tx, target, nil)
		return err
	})
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeUnavailable {
			// Nothing was stored: a retryable error on every surface (503,
			// UNAVAILABLE; the tool's status "error" with the cause).
			return api.SendResult{}, err
		}
		return fail(statusOf(err), domain.ErrorMessage(err), display), nil
	}
	if !fresh {
		// Another call with this key won the race: the same work, or a conflict.
		if err := idempotency.SameWork(run, fingerprint); err != nil {
			return api.SendResult{}, err
		}
	}
	if created {
		sd.publishSession(target, "created")
	}
	sd.log.Info("sessions_send", "from", requesterKey, "to", target, "run", run.ID)
	return sd.sendAnswer(ctx, run, display, p.TimeoutSeconds, req.RunID != "")
}

// sendAnswer is sessions_send's answer about run: accepted without a
// wait, else what the run came to within the timeout.
// A send made inside a run waits at most until that run's deadline (its
// context's): the wait is clamped, the target's run goes on.
func (sd *Sender) sendAnswer(ctx context.Context, run domain.Run, display string, timeoutSeconds *int, inRun bool) (api.SendResult, error) {
	delivery := &api.Delivery{Status: "pending", Mode: "announce"}
	if sd.sessions.IsRemote(run.AgentID) {
		// No announce follows a remote agent's reply (the engine's remote agents).
		delivery = &api.Delivery{Status: "none", Mode: sessions.RemoteChannel}
	}
	timeout := int(api.SendTimeout.Default)
	if timeoutSeconds != nil {
		timeout = *timeoutSeconds
	}
	if timeout == 0 {
		return api.SendResult{RunID: run.ID, Status: "accepted", SessionKey: display, Delivery: delivery}, nil
	}
	wait := clampToDeadline(ctx, time.Duration(timeout)*time.Second, inRun)
	timeout = int((wait + time.Second - 1) / time.Second)
	done, err := sd.rt.Wait(ctx, run.ID, wait)
	if err != nil {
		return api.SendResult{}, err
	}
	switch done.Status {
	case domain.RunOK:
		if spec, err := runspec.Decode(done); err == nil && spec.JoinedRunID != "" {
			delivery = nil // a steer that joined a running run has no announce of its own
		}
		res := api.SendResult{RunID: run.ID, Status: "ok", SessionKey: display, Delivery: delivery}
		if !exchange.Silent(done.Reply) {
			res.Reply = done.Reply
		}
		return res, nil
	case domain.RunQueued, domain.RunRunning:
		return api.SendResult{RunID: run.ID, Status: "timeout", SessionKey: display,
			Error: fmt.Sprintf("no reply within %ds; the run goes on — read the reply later with sessions_history or wait with runs_wait", timeout)}, nil
	case domain.RunTimeout:
		return api.SendResult{RunID: run.ID, Status: "timeout", SessionKey: display, Error: cmp.Or(done.Error, "run timed out")}, nil
	default:
		return api.SendResult{RunID: run.ID, Status: "error", SessionKey: display, Error: cmp.Or(done.Error, "agent error")}, nil
	}
}

// findLabel resolves a label to a key; on failure it returns the payload.
func (sd *Sender) findLabel(ctx context.Context, req Caller, g query.Guard, label, agentID string) (string, api.SendResult, bool) {
	fail := func(status, msg string) (string, api.SendResult, bool) {
		return "", api.SendResult{Status: status, Error: msg}, false
	}
	label, err := api.ParseLabel(label)
	if err != nil {
		return fail("error", domain.ErrorMessage(err))
	}
	requesterAgent := req.Agent
	agent := requesterAgent
	if agentID != "" {
		agent = strings.ToLower(strings.TrimSpace(agentID))
		if agent != requesterAgent && !req.Operator {
			if g.Visibility().Restricted() {
				return fail("forbidden", "Sandboxed sessions_send label lookup is limited to this agent")
			}
			a2a := policy.NewA2A(sd.conf())
			if !a2a.Enabled {
				return fail("forbidden", "Agent-to-agent messaging is disabled. Set tools.agentToAgent.enabled=true to allow cross-agent sends.")
			}
			if !a2a.Allowed(requesterAgent, agent) {
				return fail("forbidden", "Agent-to-agent messaging denied by tools.agentToAgent.allow.")
			}
		}
	}
	all, err := sd.store.ListSessions(ctx, domain.SessionQuery{Label: label, AgentIDs: []string{agent}, Limit: 10})
	if err != nil {
		return fail("error", domain.ErrorMessage(err))
	}
	// A label on a session the requester may not see answers exactly as an
	// unknown label, and an ambiguity never names a hidden key.
	rows := all[:0]
	for _, s := range all {
		if g.Check(ctx, s.Key, policy.ActionSend) == nil {
			rows = append(rows, s)
		}
	}
	switch len(rows) {
	case 0:
		if g.Visibility().Restricted() {
			return fail("forbidden", "Session not visible from this sandboxed agent session.")
		}
		return fail("error", "No session found with label: "+label)
	case 1:
		return rows[0].Key, api.SendResult{}, true
	}
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	return fail("error", fmt.Sprintf("Multiple sessions found with label: %s (%s)", label, strings.Join(keys, ", ")))
}

func statusOf(err error) string {
	if domain.ErrorCode(err) == domain.CodeForbidden {
		return "forbidden"
	}
	return "error"
}
