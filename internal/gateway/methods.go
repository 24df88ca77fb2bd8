package gateway

import (
	"context"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/gateway/wireschema"
)

// call is one request being handled.
type call struct {
	c      *conn
	id     json.RawMessage
	method string
	params json.RawMessage
}

// ack sends an intermediate response (the `accepted` answer of `agent`);
// the handler's return value becomes the final one.
func (cl *call) ack(payload any) error { return cl.c.respond(cl.id, payload) }

// principal is the caller's principal acting as as ("" = its own rights).
func (cl *call) principal(as string) api.Principal {
	if as == "" {
		return cl.c.self
	}
	return cl.c.grant.principal(as)
}

// method is a gateway method: the api operation it performs (whose rule
// in api.RuleFor says the scope it needs) and its handler. op is "" when
// the operation depends on the params (tools.invoke); the engine's gate
// then decides alone.
type method struct {
	op api.Op
	fn func(ctx context.Context, cl *call) (any, error)
}

// methodTable lists every method the gateway answers.
func (s *Server) methodTable() map[string]method {
	return map[string]method{
		// Subscriptions (m_subscribe.go): read scope, keys through the
		// gate's visibility (sessions.get).
		"sessions.subscribe":            {api.OpSessionsGet, s.mSessionsSubscribe},
		"sessions.unsubscribe":          {api.OpSessionsGet, s.mSessionsUnsubscribe},
		"sessions.messages.subscribe":   {api.OpSessionsGet, s.mMessagesSubscribe},
		"sessions.messages.unsubscribe": {api.OpSessionsGet, s.mMessagesUnsubscribe},

		"sessions.list":    {api.OpSessionsList, s.mSessionsList},
		"sessions.search":  {api.OpSessionsSearch, s.mSessionsSearch},
		"sessions.resolve": {api.OpSessionsGet, s.mSessionsResolve},
		"sessions.patch":   {api.OpSessionsPatch, s.mSessionsPatch},
		"sessions.reset":   {api.OpSessionsReset, s.mSessionsReset},
		"sessions.delete":  {api.OpSessionsDel, s.mSessionsDelete},
		"sessions.spawn":   {api.OpSessionsSpawn, s.mSessionsSpawn},
		"chat.history":     {api.OpSessionsHistory, s.mChatHistory},
		"chat.startup":     {api.OpSessionsHistory, s.mChatStartup},
		"chat.send":        {api.OpChat, s.mChatSend},
		"chat.abort":       {api.OpRunsCancel, s.mChatAbort},
		"agent":            {api.OpChat, s.mAgent},
		"agent.wait":       {api.OpRunsWait, s.mAgentWait},
		"send":             {api.OpDeliver, s.mSend},
		"agents.list":      {api.OpAgentsList, s.mAgentsList},
		"models.list":      {api.OpAgentsList, s.mModelsList},
		"runs.get":         {api.OpRunsGet, s.mRunsGet},
		"runs.cancel":      {api.OpRunsCancel, s.mRunsCancel},
		"tools.invoke":     {"", s.mToolsInvoke},
		"usage.report":     {api.OpUsageReport, s.mUsageReport},
		"loops.list":       {api.OpLoopsList, s.mLoopsList},
		"loops.resume":     {api.OpLoopsResume, s.mLoopsResume},
		"audit.list":       {api.OpAuditList, s.mAuditList},
		"audit.chain.list": {api.OpAuditChain, s.mAuditChainList},

		// Approvals (approvals.go): OpenClaw's approval.get, .resolve and
		// .history, and switchboard's approval.list.
		"approval.get":     {api.OpApprovalGet, s.mApprovalGet},
		"approval.resolve": {api.OpApprovalResolve, s.mApprovalResolve},
		"approval.history": {api.OpApprovalHistory, s.mApprovalHistory},
		"approval.list":    {api.OpApprovalList, s.mApprovalList},

		"channels.status":          {api.OpChannelsStatus, s.mChannelsStatus},
		"channels.pairing.list":    {api.OpChannelsPairing, s.mPairingList},
		"channels.pairing.approve": {api.OpChannelsPairing, s.mPairingApprove},
		"channels.pairing.dismiss": {api.OpChannelsPairing, s.mPairingDismiss},
	}
}

// dispatch runs one request and answers it. When the connection is gone
// there is no one to answer.
func (c *conn) dispatch(f reqFrame) {
	s := c.s
	if f.Method == "connect" {
		_ = c.respondErr(f.ID, domain.Invalid("already connected: connect is only valid as the first request"))
		return
	}
	if ex := s.allow(c.grant); ex != nil {
		s.metrics.request(f.Method, CodeUnavailable)
		_ = c.respondErr(f.ID, limitedError(ex))
		return
	}
	m, ok := s.methods[f.Method]
	if !ok {
		s.metrics.request(f.Method, CodeInvalidRequest)
		_ = c.respondErr(f.ID, domain.Invalid("unknown method: %s", f.Method))
		return
	}
	// The same rule the engine's gate applies, checked before the params
	// are read so a refused caller learns nothing from validation.
	if m.op != "" {
		if err := s.authorize(c.ctx, c.self, m.op, "ws"); err != nil {
			s.metrics.request(f.Method, toWireError(err).Code)
			_ = c.respondErr(f.ID, err)
			return
		}
	}
	// OpenClaw's own schema of the params, where it has one: what its
	// gateway refuses, this one refuses in the same words.
	if msg := wireschema.Check(f.Method, f.Params); msg != "" {
		s.metrics.request(f.Method, CodeInvalidRequest)
		_ = c.respondErr(f.ID, domain.Invalid("invalid %s params: %s", f.Method, msg))
		return
	}
	ctx, span := c.traceRequest(f)
	payload, err := m.fn(ctx, &call{c: c, id: f.ID, method: f.Method, params: f.Params})
	span.End(err)
	if c.ctx.Err() != nil {
		return
	}
	if err != nil {
		we := toWireError(err)
		s.metrics.request(f.Method, we.Code)
		if we.Code == CodeUnavailable {
			s.log.Warn("gateway method failed", "method", f.Method, "principal", c.grant.name, "conn", c.id, "requestId", c.requestID, "id", string(f.ID), "err", err)
		}
		_ = c.respondErr(f.ID, err)
		return
	}
	s.metrics.request(f.Method, "OK")
	_ = c.respond(f.ID, payload)
}
