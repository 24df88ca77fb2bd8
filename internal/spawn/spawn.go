package spawn

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/budget"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/idempotency"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/runspec"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
	"github.com/switchboard-go/switchboard/internal/sessions"
	"github.com/switchboard-go/switchboard/internal/subagent"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// Spawn starts a sub-agent run in a new isolated session and returns at
// once; the child's result is announced back to the requester session.
// p.IdempotencyKey is already scoped to the caller (the engine's gate).
func (sp *Spawner) Spawn(ctx context.Context, c Caller, p api.SpawnRequest) (api.SpawnResult, error) {
	subs := sp.cfg.Agents.Defaults.Subagents
	p.Thinking = api.NormalizeThinking(p.Thinking)
	var err error
	if strings.TrimSpace(p.Task) == "" {
		return api.SpawnResult{}, domain.Invalid("task required")
	}
	if err := api.TaskChars.CheckChars(p.Task); err != nil {
		return api.SpawnResult{}, err
	}
	if err := api.CheckLabel(p.Label); err != nil {
		return api.SpawnResult{}, err
	}
	if p.RunTimeoutSeconds != nil {
		if _, err := api.SpawnRunTimeout.Apply(int64(*p.RunTimeoutSeconds)); err != nil {
			return api.SpawnResult{}, err
		}
	}
	if p.Context, err = spawnContext(p.Context); err != nil {
		return api.SpawnResult{}, err
	}
	idem := ""
	if p.IdempotencyKey != "" {
		idem = "spawn:" + p.IdempotencyKey
	}
	fingerprint := spawnFingerprint(p)
	if prior, found, err := idempotency.Prior(ctx, sp.store, idem, fingerprint); err != nil || found {
		if err != nil {
			return api.SpawnResult{}, err
		}
		return priorSpawn(prior), nil
	}
	requesterKey, requesterAgent := c.Key, c.Agent
	requester, err := sp.store.GetSession(ctx, requesterKey)
	if err != nil {
		requester, err = sp.sessions.New(requesterKey)
		if err != nil {
			return api.SpawnResult{}, err
		}
	}
	depth := requester.SpawnDepth
	if depth == 0 && sessionkey.IsSubagentKey(requesterKey) {
		depth = sessionkey.SubagentDepth(requesterKey)
	}
	if depth >= subs.MaxSpawnDepth {
		if subs.MaxSpawnDepth <= 1 {
			return api.SpawnResult{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn is not allowed from sub-agent sessions (agents.defaults.subagents.maxSpawnDepth=%d)", subs.MaxSpawnDepth)
		}
		return api.SpawnResult{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: spawn depth %d would exceed agents.defaults.subagents.maxSpawnDepth=%d", depth+1, subs.MaxSpawnDepth)
	}

	// Mode and thread.
	mode := p.Mode
	if mode == "" {
		mode = "run"
		if p.Thread {
			mode = "session"
		}
	}
	if mode == "session" && !p.Thread {
		return api.SpawnResult{}, domain.Invalid(`mode="session" requires thread=true so the subagent can stay bound to a thread.`)
	}
	cleanup := p.Cleanup
	if cleanup == "" {
		cleanup = "keep"
	}
	if mode == "session" {
		// A persistent child is kept whatever cleanup says (OpenClaw's
		// rule): deleting it after its first announce would end the
		// session the result tells the requester to keep talking to.
		cleanup = "keep"
	}

	// Which agent, and may the requester use it.
	agent := requesterAgent
	if p.AgentID != "" {
		agent = strings.ToLower(strings.TrimSpace(p.AgentID))
	}
	if err := policy.SpawnAllowed(sp.cfg, requesterAgent, agent); err != nil {
		return api.SpawnResult{}, err
	}

	// Model and thinking.
	model := p.Model
	if model == "" {
		model = subs.Model
	}
	if model == "" {
		model = sp.conf().AgentModel(agent)
	}
	if _, _, err := sp.models.Resolve(model); err != nil {
		return api.SpawnResult{}, err
	}
	if p.Thinking != "" {
		if err := sp.models.ValidateThinking(model, p.Thinking); err != nil {
			return api.SpawnResult{}, err
		}
	}

	// Budget: asked, or the agent's default, capped by what is left above.
	asked, err := p.Budget.Budget()
	if err != nil {
		return api.SpawnResult{}, err
	}
	payer := sp.payer(ctx, requesterKey, c.RunID)
	childBudget, err := sp.budgets.ForSpawn(ctx, budget.Spawn{
		Asked: asked, InRun: c.RunID != "", Requester: requesterKey, Payer: payer,
		RequesterAgent: requesterAgent, Model: model,
		FirstPrompt: budget.EstimateTokens(p.Task, subagent.Context(requesterKey, "", p.Label)),
	})
	if err != nil {
		return api.SpawnResult{}, err
	}

	// Sandbox inheritance.
	childSandboxed := sp.conf().AgentSandboxed(agent)
	requesterSandboxed := policy.Sandboxed(sp.conf(), requester.AgentID, requester.Sandboxed)
	if requesterSandboxed && !childSandboxed {
		return api.SpawnResult{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: this session is sandboxed and agent %q would run unsandboxed", agent)
	}
	if p.Sandbox == "require" && !childSandboxed {
		return api.SpawnResult{}, domain.Errorf(domain.CodeForbidden, `sessions_spawn refused: sandbox="require" but agent %q runs unsandboxed (set its sandbox.mode to "all")`, agent)
	}

	if c.Hold != nil {
		if res, held, err := c.Hold(ctx, p, agent); held || err != nil {
			return res, err
		}
	}

	// Limits on live children: checked with the run's commit, under the
	// spawn gate (admitSpawn), so that concurrent spawns cannot overshoot.

	timeout := subs.RunTimeoutSeconds
	if p.RunTimeoutSeconds != nil {
		timeout = *p.RunTimeoutSeconds
	}

	childKey := sessionkey.NewSubagentKey(agent, sp.newID())
	task := p.Task
	ss := subagent.Spec{RequesterKey: requesterKey, RequesterChannel: sessions.ChannelOf(requester), Label: p.Label,
		Task: p.Task, Mode: mode, Cleanup: cleanup}

	// Attachments are written before the run exists; a failure leaves nothing.
	var receipt *attachments.Receipt
	if len(p.Attachments) > 0 {
		ac := sp.cfg.Tools.SessionsSpawn.Attachments
		if !ac.Enabled {
			return api.SpawnResult{}, domain.Errorf(domain.CodeForbidden, "attachments are disabled for sessions_spawn (enable tools.sessions_spawn.attachments.enabled)")
		}
		files, err := attachments.Decode(p.Attachments, attachments.LimitsFromConfig(ac))
		if err != nil {
			return api.SpawnResult{}, err
		}
		ws := sp.cfg.Workspace(sp.dir, agent)
		r, dir, err := attachments.Materialize(ws, files, sp.newID)
		if err != nil {
			return api.SpawnResult{}, attachments.WriteFailure("writing the attachments", err)
		}
		receipt = &r
		ss.AttachmentsDir = dir
		ss.AttachmentsRoot = filepath.Join(ws, ".switchboard", "attachments")
		ss.RetainAttachments = ac.RetainOnSessionKeep
		task += "\n\n" + attachments.PromptSuffix(r, attachments.MountPathHint(p.MountPath))
	}

	var forked []domain.Message
	if p.Context == api.SpawnFork {
		if forked, err = ForkMessages(ctx, sp.store, requesterKey); err != nil {
			return api.SpawnResult{}, err
		}
	}
	if err := sp.admit(requesterKey, childKey); err != nil {
		return api.SpawnResult{}, err
	}
	spec := runspec.Spec{
		Spec: runs.Spec{Prelude: forked,
			UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(task),
				Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, SourceSessionKey: requesterKey,
					SourceTool: api.ToolSessionsSpawn, SourceRunID: c.RunID}}},
		System:      subagent.Context(requesterKey, childKey, p.Label),
		Model:       model,
		Thinking:    p.Thinking,
		Spawn:       &ss,
		Fingerprint: fingerprint,
		TraceParent: tracing.Root(ctx, "sessions_spawn"),
	}
	if payer != requesterKey {
		// The child's tree is outside the payer's: its first run draws on
		// the payer's chain explicitly.
		spec.Payer = payer
	}
	rawSpec, err := runspec.Encode(spec)
	if err != nil {
		return api.SpawnResult{}, err
	}
	now := sp.nowMs()
	var (
		run     domain.Run
		created bool
	)
	err = sp.admitSpawn(ctx, requesterKey, idem, func() (err error) {
		run, created, err = sp.rt.Submit(ctx, domain.Run{
			SessionKey: childKey, AgentID: agent, Kind: domain.RunKindSubagent, Lane: domain.LaneSubagent,
			ParentRunID: c.RunID, RequesterKey: requesterKey, IdempotencyKey: idem, Message: p.Task,
			TimeoutMs: int64(timeout) * 1000, Spec: rawSpec,
		}, func(tx domain.Tx) error {
			if _, err := tx.GetSession(requesterKey); err != nil {
				if _, _, err := sp.sessions.Ensure(tx, requesterKey, nil); err != nil {
					return err
				}
			}
			_, _, err := sp.sessions.Ensure(tx, childKey, func(s *domain.Session) {
				s.SpawnedBy = requesterKey
				s.SpawnDepth = depth + 1
				s.Sandboxed = childSandboxed || requesterSandboxed
				s.Label = p.Label
				s.ModelOverride = model
				s.ThinkingLevel = p.Thinking
				s.Status = domain.SessionStatusRunning
				s.StartedAt = now
				s.Channel = "internal"
				s.ForkedFromParent = p.Context == api.SpawnFork
			})
			if err != nil {
				return err
			}
			return tx.PutAccount(budget.ChildAccount(childKey, requesterKey, childBudget, now))
		})
		return err
	})
	if err != nil {
		if ss.AttachmentsDir != "" {
			_ = attachments.SafeRemove(ss.AttachmentsRoot, ss.AttachmentsDir)
		}
		return api.SpawnResult{}, err
	}
	if !created {
		// Another call with this key won the race: report the first
		// spawn, or refuse other parameters.
		if receipt != nil {
			_ = attachments.SafeRemove(ss.AttachmentsRoot, ss.AttachmentsDir)
		}
		if err := idempotency.SameWork(run, fingerprint); err != nil {
			return api.SpawnResult{}, err
		}
		return priorSpawn(run), nil
	}
	sp.publishSession(childKey, "created")
	sp.log.Info("sessions_spawn", "requester", requesterKey, "child", childKey, "run", run.ID, "agent", agent, "model", model)
	res := api.SpawnResult{Status: "accepted", ChildSessionKey: childKey, RunID: run.ID, Mode: mode, Note: subagent.Note, Attachments: receipt}
	if !childBudget.IsZero() {
		res.Budget = &childBudget
	}
	if p.Model != "" {
		res.ModelApplied = model
	}
	if mode == "session" {
		res.Note = subagent.SessionNote
	}
	return res, nil
}

// spawnFingerprint digests the parameters that define a spawn's work (its
// timeout is not one of them).
func spawnFingerprint(p api.SpawnRequest) string {
	w := idempotency.SpawnWork{Task: p.Task, Label: p.Label, AgentID: strings.ToLower(strings.TrimSpace(p.AgentID)), Model: p.Model,
		Thinking: p.Thinking, Thread: p.Thread, Mode: p.Mode, Cleanup: p.Cleanup, Sandbox: p.Sandbox, MountPath: p.MountPath}
	if p.Context == api.SpawnFork {
		w.Context = api.SpawnFork // isolated is the default: old fingerprints stay valid
	}
	if len(p.Attachments) > 0 {
		w.Attachments = api.Fingerprint(p.Attachments)
	}
	return api.Fingerprint(w)
}

// priorSpawn is the answer to a retried spawn: the first spawn's run.
func priorSpawn(run domain.Run) api.SpawnResult {
	mode := "run"
	if spec, err := runspec.Decode(run); err == nil && spec.Spawn != nil && spec.Spawn.Mode != "" {
		mode = spec.Spawn.Mode
	}
	return api.SpawnResult{Status: "accepted", ChildSessionKey: run.SessionKey, RunID: run.ID, Mode: mode, Note: subagent.Note}
}

// spawnGateName is the store gate (domain.Store.Gate) that makes the
// live-children limits of sessions_spawn (maxChildrenPerAgent,
// maxConcurrent) hold under concurrent calls: the count of active children
// and the commit of the new child run happen under it, so two spawns can
// never both see "one below the limit" and both start. Without it, an MCP
// client issuing several spawns at once got every one accepted (trial 9).
// The store's transaction has no run count, and a spawn is rare next to a
// chat turn, so one gate for every spawn, held for one commit, is the
// simple, sufficient bound. It is the store's, so it holds across replicas
// on PostgreSQL too (docs/decisions.md#store-gates).
const spawnGateName = "spawn-limits"

// admitSpawn counts the active children (of requesterKey, and of everyone)
// and, when the limits allow one more, runs start while still holding the
// gate; start must commit the child run before it returns. A spawn whose
// idempotency key idem already names a run is a retry, not one more child:
// it skips the limits, and start finds the first run (so two concurrent
// calls with one key both answer the one child, even at the limit).
func (sp *Spawner) admitSpawn(ctx context.Context, requesterKey, idem string, start func() error) error {
	release, err := sp.store.Gate(ctx, spawnGateName)
	if err != nil {
		return err
	}
	defer release()
	if idem != "" {
		_, err := sp.store.GetRunByIdempotencyKey(ctx, idem)
		if err == nil {
			return start()
		}
		if !errors.Is(err, domain.ErrNotFound) {
			return err
		}
	}
	subs := sp.cfg.Agents.Defaults.Subagents
	active, err := sp.store.ListRuns(ctx, domain.RunQuery{Kinds: []domain.RunKind{domain.RunKindSubagent}, Statuses: []domain.RunStatus{domain.RunQueued, domain.RunRunning}})
	if err != nil {
		return err
	}
	mine := 0
	for _, r := range active {
		if r.RequesterKey == requesterKey {
			mine++
		}
	}
	if subs.MaxChildrenPerAgent > 0 && mine >= subs.MaxChildrenPerAgent {
		return domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: this session already has %d active sub-agents (agents.defaults.subagents.maxChildrenPerAgent=%d)", mine, subs.MaxChildrenPerAgent)
	}
	if subs.MaxConcurrent > 0 && len(active) >= subs.MaxConcurrent {
		return domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: %d sub-agents are already active (agents.defaults.subagents.maxConcurrent=%d)", len(active), subs.MaxConcurrent)
	}
	return start()
}
