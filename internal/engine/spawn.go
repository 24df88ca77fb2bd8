package engine

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
	"github.com/switchboard-go/switchboard/internal/subagent"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

type SpawnParams = api.SpawnRequest

type SpawnResult = api.SpawnResult

// spawn starts a sub-agent run in a new isolated session and returns at
// once; the child's result is announced back to the requester session.
func (e *Engine) spawn(ctx context.Context, req Requester, p SpawnParams) (SpawnResult, error) {
	subs := e.cfg.Agents.Defaults.Subagents
	p.Thinking = api.NormalizeThinking(p.Thinking)
	var err error
	if p.IdempotencyKey == "" {
		p.IdempotencyKey = req.IdempotencyKey
	}
	if strings.TrimSpace(p.Task) == "" {
		return SpawnResult{}, domain.Invalid("task required")
	}
	if err := api.TaskChars.CheckChars(p.Task); err != nil {
		return SpawnResult{}, err
	}
	if err := api.CheckLabel(p.Label); err != nil {
		return SpawnResult{}, err
	}
	if p.RunTimeoutSeconds != nil {
		if _, err := api.SpawnRunTimeout.Apply(int64(*p.RunTimeoutSeconds)); err != nil {
			return SpawnResult{}, err
		}
	}
	if p.Context, err = spawnContext(p.Context); err != nil {
		return SpawnResult{}, err
	}
	idem := ""
	if p.IdempotencyKey != "" {
		idem = "spawn:" + req.scopeKey(api.OpSessionsSpawn, p.IdempotencyKey)
	}
	fingerprint := spawnFingerprint(p)
	if prior, found, err := e.priorRun(ctx, idem, fingerprint); err != nil || found {
		if err != nil {
			return SpawnResult{}, err
		}
		return priorSpawn(prior), nil
	}
	requesterKey, requesterAgent := req.key(e), req.agent(e)
	requester, err := e.store.GetSession(ctx, requesterKey)
	if err != nil {
		requester, err = e.newSession(requesterKey)
		if err != nil {
			return SpawnResult{}, err
		}
	}
	depth := requester.SpawnDepth
	if depth == 0 && sessionkey.IsSubagentKey(requesterKey) {
		depth = sessionkey.SubagentDepth(requesterKey)
	}
	if depth >= subs.MaxSpawnDepth {
		if subs.MaxSpawnDepth <= 1 {
			return SpawnResult{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn is not allowed from sub-agent sessions (agents.defaults.subagents.maxSpawnDepth=%d)", subs.MaxSpawnDepth)
		}
		return SpawnResult{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: spawn depth %d would exceed agents.defaults.subagents.maxSpawnDepth=%d", depth+1, subs.MaxSpawnDepth)
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
		return SpawnResult{}, domain.Invalid(`mode="session" requires thread=true so the subagent can stay bound to a thread.`)
	}
	cleanup := orDefault(p.Cleanup, "keep")
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
	if err := policy.SpawnAllowed(e.cfg, requesterAgent, agent); err != nil {
		return SpawnResult{}, err
	}

	// Model and thinking.
	model := p.Model
	if model == "" {
		model = subs.Model
	}
	if model == "" {
		model = e.conf().AgentModel(agent)
	}
	if _, _, err := e.models.Resolve(model); err != nil {
		return SpawnResult{}, err
	}
	if p.Thinking != "" {
		if err := e.models.ValidateThinking(model, p.Thinking); err != nil {
			return SpawnResult{}, err
		}
	}

	// Budget: asked, or the agent's default, capped by what is left above.
	payer := e.payerFor(ctx, req, requesterKey)
	firstPrompt := estimateTokens(p.Task, subagent.Context(requesterKey, "", p.Label))
	budget, err := e.spawnBudget(ctx, p, req.RunID != "", requesterKey, payer, requesterAgent, model, firstPrompt)
	if err != nil {
		return SpawnResult{}, err
	}

	// Sandbox inheritance.
	childSandboxed := e.conf().AgentSandboxed(agent)
	requesterSandboxed := e.sandboxed(requester)
	if requesterSandboxed && !childSandboxed {
		return SpawnResult{}, domain.Errorf(domain.CodeForbidden, "sessions_spawn refused: this session is sandboxed and agent %q would run unsandboxed", agent)
	}
	if p.Sandbox == "require" && !childSandboxed {
		return SpawnResult{}, domain.Errorf(domain.CodeForbidden, `sessions_spawn refused: sandbox="require" but agent %q runs unsandboxed (set its sandbox.mode to "all")`, agent)
	}

	// Limits on live children: checked with the run's commit, under the
	// spawn gate (admitSpawn), so that concurrent spawns cannot overshoot.

	timeout := subs.RunTimeoutSeconds
	if p.RunTimeoutSeconds != nil {
		timeout = *p.RunTimeoutSeconds
	}

	childKey := sessionkey.NewSubagentKey(agent, e.newID())
	task := p.Task
	ss := subagent.Spec{RequesterKey: requesterKey, RequesterChannel: e.channelOf(requester), Label: p.Label,
		Task: p.Task, Mode: mode, Cleanup: cleanup}

	// Attachments are written before the run exists; a failure leaves nothing.
	var receipt *attachments.Receipt
	if len(p.Attachments) > 0 {
		ac := e.cfg.Tools.SessionsSpawn.Attachments
		if !ac.Enabled {
			return SpawnResult{}, domain.Errorf(domain.CodeForbidden, "attachments are disabled for sessions_spawn (enable tools.sessions_spawn.attachments.enabled)")
		}
		files, err := attachments.Decode(p.Attachments, attachments.LimitsFromConfig(ac))
		if err != nil {
			return SpawnResult{}, err
		}
		ws := e.cfg.Workspace(e.dir, agent)
		r, dir, err := attachments.Materialize(ws, files, e.newID)
		if err != nil {
			return SpawnResult{}, fsFailure("writing the attachments", err)
		}
		receipt = &r
		ss.AttachmentsDir = dir
		ss.AttachmentsRoot = filepath.Join(ws, ".switchboard", "attachments")
		ss.RetainAttachments = ac.RetainOnSessionKeep
		task += "\n\n" + attachments.PromptSuffix(r, attachments.MountPathHint(p.MountPath))
	}

	var forked []domain.Message
	if p.Context == api.SpawnFork {
		if forked, err = e.forkMessages(ctx, requesterKey); err != nil {
			return SpawnResult{}, err
		}
	}
	if err := e.admit(requesterKey, childKey); err != nil {
		return SpawnResult{}, err
	}
	spec := runSpec{
		Prelude: forked,
		UserMessage: &domain.Message{Role: domain.RoleUser, Content: domain.TextContent(task),
			Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, SourceSessionKey: requesterKey,
				SourceTool: api.ToolSessionsSpawn, SourceRunID: req.RunID}},
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
	rawSpec, err := encodeSpec(spec)
	if err != nil {
		return SpawnResult{}, err
	}
	now := e.nowMs()
	var (
		run     domain.Run
		created bool
	)
	err = e.admitSpawn(ctx, requesterKey, idem, func() (err error) {
		run, created, err = e.rt.Submit(ctx, domain.Run{
			SessionKey: childKey, AgentID: agent, Kind: domain.RunKindSubagent, Lane: domain.LaneSubagent,
			ParentRunID: req.RunID, RequesterKey: requesterKey, IdempotencyKey: idem, Message: p.Task,
			TimeoutMs: int64(timeout) * 1000, Spec: rawSpec,
		}, func(tx domain.Tx) error {
			if _, err := tx.GetSession(requesterKey); err != nil {
				if _, _, err := e.ensureSession(tx, requesterKey, nil); err != nil {
					return err
				}
			}
			_, _, err := e.ensureSession(tx, childKey, func(s *domain.Session) {
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
			return tx.PutAccount(childAccount(childKey, requesterKey, budget, now))
		})
		return err
	})
	if err != nil {
		if ss.AttachmentsDir != "" {
			_ = attachments.SafeRemove(ss.AttachmentsRoot, ss.AttachmentsDir)
		}
		return SpawnResult{}, err
	}
	if !created {
		// Another call with this key won the race: report the first
		// spawn, or refuse other parameters.
		if receipt != nil {
			_ = attachments.SafeRemove(ss.AttachmentsRoot, ss.AttachmentsDir)
		}
		if err := sameWork(run, fingerprint); err != nil {
			return SpawnResult{}, err
		}
		return priorSpawn(run), nil
	}
	e.publishSession(childKey, "created")
	e.log.Info("sessions_spawn", "requester", requesterKey, "child", childKey, "run", run.ID, "agent", agent, "model", model)
	res := SpawnResult{Status: "accepted", ChildSessionKey: childKey, RunID: run.ID, Mode: mode, Note: subagent.Note, Attachments: receipt}
	if !budget.IsZero() {
		res.Budget = &budget
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
func spawnFingerprint(p SpawnParams) string {
	w := spawnWork{Task: p.Task, Label: p.Label, AgentID: strings.ToLower(strings.TrimSpace(p.AgentID)), Model: p.Model,
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
func priorSpawn(run domain.Run) SpawnResult {
	mode := "run"
	if spec, err := decodeSpec(run); err == nil && spec.Spawn != nil && spec.Spawn.Mode != "" {
		mode = spec.Spawn.Mode
	}
	return SpawnResult{Status: "accepted", ChildSessionKey: run.SessionKey, RunID: run.ID, Mode: mode, Note: subagent.Note}
}
