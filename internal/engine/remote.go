package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/exchange"
	"github.com/switchboard-go/switchboard/internal/policy"
	"github.com/switchboard-go/switchboard/internal/runs"
	"github.com/switchboard-go/switchboard/internal/sessions"
)

// Remote A2A agents (a2a.remotes, docs/a2a.md "Calling remote agents").
// A key `agent:<remoteId>:<rest>` names a local session that records a
// conversation with the remote agent: sessions_send to it is a run of that
// session like any other (durable, waited on, with the same statuses), but
// its one model call is an A2A exchange — the sent text goes to the remote
// in context remote.ContextID(key), and the remote's answer is the run's
// reply. The exchange has no reply-back turns and no announce step: those
// are switchboard-local steps, and the remote runs its own side.

// remoteOf returns the remote agent named id, when id is one.
func (e *Engine) remoteOf(id string) (remote.Remote, bool) {
	r, ok := e.cfg.Remote(id)
	if !ok {
		return remote.Remote{}, false
	}
	return remote.Remote{ID: strings.ToLower(r.ID), CardURL: r.URL, Endpoint: r.Endpoint, Token: r.Token,
		AllowPrivateNetwork: e.cfg.A2A.SSRFPolicy.DangerouslyAllowPrivateNetwork}, true
}

// remotePlan is the plan of a run in a remote agent's session: no tools,
// no system prompt (neither crosses the wire), and the A2A exchange as its
// model.
func (e *Engine) remotePlan(r remote.Remote, run domain.Run, sess domain.Session, chain []string) runs.Plan {
	return runs.Plan{
		ModelRef: "a2a/" + r.ID,
		Provider: remoteProvider{client: e.remotes, remote: r, key: sess.Key, chain: chain, messageID: run.ID},
		ToolContext: domain.ToolCallContext{
			SessionKey: sess.Key, AgentID: sess.AgentID, Channel: sessions.RemoteChannel,
		},
	}
}

// remoteProvider answers a remote session's run with one A2A exchange.
type remoteProvider struct {
	client *remote.Client
	remote remote.Remote
	key    string
	// chain is the loop-safety chain stored on the run; the message
	// carries it on with this session appended.
	chain []string
	// messageID is the run's id: a run repeated after a crash (the
	// crash rule re-queues a run without tool calls) sends the same
	// message again, which a deduplicating server answers with the same
	// task instead of doing the work twice.
	messageID string
}

func (p remoteProvider) Name() string                   { return "a2a" }
func (p remoteProvider) ThinkingLevels(string) []string { return nil }

// Complete sends the run's latest user message to the remote and returns
// its reply as the assistant message.
func (p remoteProvider) Complete(ctx context.Context, req domain.ModelRequest) (domain.ModelResponse, error) {
	text := ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == domain.RoleUser {
			text = req.Messages[i].Content.Text()
			break
		}
	}
	res, err := p.client.Send(ctx, p.remote, remote.Message{
		ContextID: remote.ContextID(p.key),
		Text:      text,
		Chain:     append(slices.Clip(p.chain), p.key),
		MessageID: p.messageID,
	})
	if err != nil {
		return domain.ModelResponse{}, err
	}
	return domain.ModelResponse{Message: domain.Message{Role: domain.RoleAssistant, Content: domain.TextContent(res.Reply)}}, nil
}

// remotesList is agents_list's remotes: every configured remote, and
// whether req may send to it (the cross-agent rules: visibility "all" and
// tools.agentToAgent; operators may always).
func (e *Engine) remotesList(ctx context.Context, req Requester) []api.RemoteAgentInfo {
	out := []api.RemoteAgentInfo{}
	g := e.guardFor(ctx, req)
	for _, r := range e.cfg.A2A.Remotes {
		id := strings.ToLower(r.ID)
		key := "agent:" + id + ":" + e.cfg.MainKey()
		allowed := g.Check(ctx, key, policy.ActionSend) == nil
		info := api.RemoteAgentInfo{ID: id, Allowed: allowed}
		if req.Operator {
			// Where a remote lives is the operator's to know: a session
			// (an agent, a bound token) sees its id and whether it may use it.
			info.URL = r.ShownURL()
		}
		out = append(out, info)
	}
	return out
}

// arrival is loop governance for a message that came over A2A with a
// chain (api.ChatRequest.Chain): it is refused when its session is already
// in the chain, or when the chain is longer than
// session.agentToAgent.maxHops — the same rules as a local send's
// (exchange.Extend), so a loop through remote agents stops.
func (e *Engine) arrival(chain []string, key string) error {
	if len(chain) == 0 {
		return nil
	}
	last := len(chain) - 1
	if _, refused := exchange.Extend(chain[:last], chain[last], key, key, e.cfg.Session.AgentToAgent.MaxHops); refused != "" {
		return domain.Errorf(domain.CodeForbidden, "%s", refused)
	}
	return nil
}
