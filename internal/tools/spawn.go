package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// attachmentArg is one inline file of sessions_spawn.
type attachmentArg struct {
	Name     string `json:"name" jsonschema:"File name (no directories)."`
	Content  string `json:"content" jsonschema:"File content, as utf8 text or base64."`
	Encoding string `json:"encoding,omitempty" jsonschema:"utf8 (default) or base64."`
	MimeType string `json:"mimeType,omitempty" jsonschema:"Media type of the file."`
}

// attachAsArg is sessions_spawn's reserved mount hint.
type attachAsArg struct {
	MountPath string `json:"mountPath,omitempty" jsonschema:"Where attachments should be mounted (reserved)."`
}

// spawnArgs are sessions_spawn's parameters.
type spawnArgs struct {
	Task              string          `json:"task" jsonschema:"What the sub-agent should do, with everything it needs to know."`
	Label             string          `json:"label,omitempty" jsonschema:"A short label for logs and the UI."`
	AgentID           string          `json:"agentId,omitempty" jsonschema:"Spawn under another agent id (if allowed; see agents_list)."`
	Model             string          `json:"model,omitempty" jsonschema:"Model reference for the sub-agent (provider/model)."`
	Thinking          string          `json:"thinking,omitempty" jsonschema:"Thinking level for the sub-agent run."`
	RunTimeoutSeconds float64         `json:"runTimeoutSeconds,omitempty" jsonschema:"Abort the sub-agent run after this many seconds (0 = no limit)"`
	TimeoutSeconds    float64         `json:"timeoutSeconds,omitempty" jsonschema:"Alias of runTimeoutSeconds."`
	Thread            bool            `json:"thread,omitempty" jsonschema:"Request thread-bound routing (default false)."`
	Mode              string          `json:"mode,omitempty" jsonschema:"run (default): one run; session: a persistent child session (requires thread=true)."`
	Cleanup           string          `json:"cleanup,omitempty" jsonschema:"delete removes the child session after the announce (default keep)."`
	Sandbox           string          `json:"sandbox,omitempty" jsonschema:"require: refuse unless the child runs sandboxed."`
	Attachments       []attachmentArg `json:"attachments,omitempty" jsonschema:"Inline files written into the child's workspace."`
	AttachAs          *attachAsArg    `json:"attachAs,omitempty" jsonschema:"Reserved hint for where attachments are mounted."`
	IdempotencyKey    string          `json:"idempotencyKey,omitempty" jsonschema:"Makes a retried call safe."`
	Context           string          `json:"context,omitempty" jsonschema:"isolated (default): the sub-agent gets only its task; fork: it also gets a copy of this session's recent conversation (tool results left out)."`
	Budget            *budgetArg      `json:"budget,omitempty" jsonschema:"What the sub-agent and everything it spawns may spend; it stops before the model call that would go past. Capped by what this session's own budget has left; absent fields use the configured default."`
	// Runtime and LightContext are OpenClaw's sessions_spawn's, accepted
	// so its callers work: the only runtime is "subagent" (no ACP), and a
	// child's context is always light (no workspace bootstrap files), so
	// neither changes the request.
	Runtime      string `json:"runtime,omitempty" jsonschema:"subagent (the only runtime)."`
	LightContext bool   `json:"lightContext,omitempty" jsonschema:"Accepted; a sub-agent's context is always light."`
}

// budgetArg is sessions_spawn's budget.
type budgetArg struct {
	Tokens  *float64 `json:"tokens,omitempty" jsonschema:"Input plus output tokens (1..1000000000)."`
	CostUSD *float64 `json:"costUsd,omitempty" jsonschema:"Cost in USD (more than 0, at most 100000); needs pricing for the model."`
	Seconds *float64 `json:"seconds,omitempty" jsonschema:"Wall-clock seconds from the spawn (1..604800)."`
}

// thinkingLevels are the accepted thinking levels.
var thinkingLevels = []string{"off", "minimal", "low", "medium", "high"}

// spawnRuntimes are the runtimes sessions_spawn accepts: OpenClaw's default
// "subagent"; its "acp" (external coding agents) does not exist here.
var spawnRuntimes = []string{"subagent"}

// rejectedSpawnKeys are delivery parameters sessions_spawn refuses with a
// hint (OpenClaw's wording).
var rejectedSpawnKeys = []string{"target", "transport", "channel", "to", "threadId", "thread_id", "replyTo", "reply_to"}

func spawnTool() *tool {
	return &tool{
		name: api.ToolSessionsSpawn,
		description: "Start a sub-agent on a task in a new isolated session. It returns at once with {status:\"accepted\", runId, childSessionKey}; " +
			"when the sub-agent finishes, its result is announced back to this session automatically — do not poll for it. " +
			"Use agents_list to see which agentId values you may use.",
		args: fieldType[spawnArgs](),
		limits: map[string]api.Limit{"runTimeoutSeconds": api.SpawnRunTimeout, "attachments": api.SpawnAttachments, "task": api.TaskChars,
			"label": api.LabelChars, "agentId": api.AgentIDChars, "model": api.ModelChars, "idempotencyKey": api.IdempotencyKeyChars},
		enums: map[string][]string{"thinking": thinkingLevels, "mode": {"run", "session"}, "cleanup": {"delete", "keep"},
			"sandbox": {"inherit", "require"}, "attachments.encoding": {attachments.EncodingUTF8, attachments.EncodingBase64},
			"context": api.SpawnContexts(), "runtime": spawnRuntimes},
		hidden: []string{"timeoutSeconds", "idempotencyKey", "lightContext"},
		call:   callSpawn,
	}
}

func callSpawn(ctx context.Context, svc api.Service, p api.Principal, raw json.RawMessage) (api.ToolOutcome, error) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(raw, &probe) == nil {
		for _, k := range rejectedSpawnKeys {
			if _, ok := probe[k]; ok {
				return api.ToolOutcome{}, domain.Invalid("sessions_spawn does not support %q. Use \"message\" or \"sessions_send\" for channel delivery.", k)
			}
		}
	}
	raw, err := foldSpawnObjects(raw)
	if err != nil {
		return api.ToolOutcome{}, err
	}
	if err := checkAttachments(raw); err != nil {
		return api.ToolOutcome{}, err
	}
	var a spawnArgs
	given, err := decode(api.ToolSessionsSpawn, raw, &a)
	if err != nil {
		return api.ToolOutcome{}, err
	}
	if err := required(given, "task", a.Task); err != nil {
		return api.ToolOutcome{}, err
	}
	for _, c := range []struct {
		l api.Limit
		v string
	}{{api.TaskChars, a.Task}, {api.LabelChars, a.Label}, {api.AgentIDChars, a.AgentID}, {api.ModelChars, a.Model}, {api.IdempotencyKeyChars, a.IdempotencyKey}} {
		if err := charsOf(given, c.l, c.v); err != nil {
			return api.ToolOutcome{}, err
		}
	}
	a.Thinking = api.NormalizeThinking(a.Thinking)
	enums := map[string]struct {
		v    string
		vals []string
	}{"thinking": {a.Thinking, thinkingLevels}, "mode": {a.Mode, []string{"run", "session"}},
		"cleanup": {a.Cleanup, []string{"delete", "keep"}}, "sandbox": {a.Sandbox, []string{"inherit", "require"}},
		"context": {a.Context, api.SpawnContexts()}, "runtime": {a.Runtime, spawnRuntimes}}
	for _, name := range []string{"thinking", "mode", "cleanup", "sandbox", "context", "runtime"} {
		if err := oneOf(given, name, enums[name].v, enums[name].vals); err != nil {
			return api.ToolOutcome{}, err
		}
	}
	if len(a.Attachments) > int(api.SpawnAttachments.Max) {
		return api.ToolOutcome{}, domain.Invalid("attachments has too many items (%d; max %d)", len(a.Attachments), api.SpawnAttachments.Max)
	}
	r := api.SpawnRequest{Task: a.Task, Label: a.Label, AgentID: a.AgentID, Model: a.Model, Thinking: a.Thinking,
		Thread: a.Thread, Mode: a.Mode, Cleanup: a.Cleanup, Sandbox: a.Sandbox, IdempotencyKey: a.IdempotencyKey, Context: a.Context}
	timeout, name := a.RunTimeoutSeconds, "runTimeoutSeconds"
	if !given[name] && given["timeoutSeconds"] {
		timeout, name = a.TimeoutSeconds, "timeoutSeconds"
	}
	if given[name] {
		l := api.SpawnRunTimeout
		l.Name = name
		n, err := l.ApplyFloat(timeout)
		if err != nil {
			return api.ToolOutcome{}, err
		}
		v := int(n)
		r.RunTimeoutSeconds = &v
	}
	for _, at := range a.Attachments {
		r.Attachments = append(r.Attachments, attachments.Spec{Name: at.Name, Content: at.Content, Encoding: at.Encoding, MimeType: at.MimeType})
	}
	if a.AttachAs != nil {
		r.MountPath = a.AttachAs.MountPath
	}
	if a.Budget != nil {
		r.Budget = &api.SpawnBudget{Tokens: a.Budget.Tokens, CostUSD: a.Budget.CostUSD, Seconds: a.Budget.Seconds}
		if _, err := r.Budget.Budget(); err != nil {
			return api.ToolOutcome{}, err
		}
	}
	res, err := svc.Spawn(ctx, p, r)
	if err != nil {
		return api.ToolOutcome{}, err
	}
	return ok(res)
}

// checkAttachments refuses an attachment entry without content (or of the
// wrong shape), naming its index and field, before it could be taken as an
// empty file (attachments.CheckEntries).
func checkAttachments(raw json.RawMessage) error {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	for k, v := range top {
		if camel(k) == "attachments" {
			if err := attachments.CheckEntries(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// spawnObjectFields are the fields of sessions_spawn's nested objects. Their
// snake_case aliases fold like top-level parameters (mime_type, mount_path,
// cost_usd) and other fields are refused, as the schema's
// additionalProperties:false says: a misspelt field must neither be dropped
// silently nor leave a budget unbounded.
var spawnObjectFields = map[string][]string{
	"attachments": {"name", "content", "encoding", "mimeType"},
	"attachAs":    {"mountPath"},
	"budget":      {"tokens", "costUsd", "seconds"},
}

// foldSpawnObjects rewrites the nested objects of raw (each attachment,
// attachAs, budget) with their fields folded to camelCase, refusing unknown
// ones. Values of the wrong type are left for decode to refuse.
func foldSpawnObjects(raw json.RawMessage) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return raw, nil
	}
	changed := false
	for k, v := range top {
		name := camel(k)
		allowed, ok := spawnObjectFields[name]
		if !ok {
			continue
		}
		if name == "attachments" {
			var items []json.RawMessage
			if json.Unmarshal(v, &items) != nil {
				continue
			}
			for i, it := range items {
				folded, err := foldObject(fmt.Sprintf("attachments[%d]", i), it, allowed)
				if err != nil {
					return nil, err
				}
				items[i] = folded
			}
			top[k], _ = json.Marshal(items)
		} else {
			folded, err := foldObject(name, v, allowed)
			if err != nil {
				return nil, err
			}
			top[k] = folded
		}
		changed = true
	}
	if !changed {
		return raw, nil
	}
	return json.Marshal(top)
}

// foldObject folds the snake_case keys of the JSON object raw into
// camelCase and refuses keys outside allowed; a non-object is returned
// as is. A camelCase key wins over its alias.
func foldObject(what string, raw json.RawMessage, allowed []string) (json.RawMessage, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw, nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		name := camel(k)
		if !slices.Contains(allowed, name) {
			return nil, domain.Invalid("%s: unknown field %q (accepted: %s)", what, k, strings.Join(allowed, ", "))
		}
		if _, dup := out[name]; dup && name != k {
			continue
		}
		out[name] = v
	}
	return json.Marshal(out)
}
