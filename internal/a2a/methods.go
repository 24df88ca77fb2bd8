package a2a

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// Channel is the channel A2A messages arrive on (session provenance and
// send-policy matching).
const Channel = "a2a"

// sendParams is a SendMessage request of either generation, checked.
type sendParams struct {
	msg incoming
	// wait: answer when the task has ended (1.0 returnImmediately false;
	// 0.3 blocking, true unless the client says false).
	wait    bool
	history *int32
	// push is the push config the message carries (nil: none).
	push *pushRequest
	// pushField names where the message carries it.
	pushField string
}

// decodeSend reads the params of SendMessage / message/send (and the
// streaming variants).
func decodeSend(c *call) (sendParams, *rpcError) {
	var sp sendParams
	var m *wire.Message
	switch c.gen {
	case gen03:
		lp, e := decodeLegacySend(c.params)
		if e != nil {
			return sp, e
		}
		m, sp.wait, sp.history, sp.push = lp.msg, lp.wait, lp.history, lp.push
		sp.pushField = "configuration.pushNotificationConfig"
	default:
		var req wire.SendMessageRequest
		if e := decodeParams(c.params, &req); e != nil {
			return sp, e
		}
		m = req.Message
		sp.wait = true
		if cfg := req.Configuration; cfg != nil {
			for _, f := range []struct {
				name string
				raw  json.RawMessage
			}{{"taskPushNotificationConfig", cfg.TaskPushNotificationConfig}, {"pushNotificationConfig", cfg.PushNotificationConfig}, {"pushNotification", cfg.PushNotification}} {
				r, e := decodeSendPush(f.name, f.raw)
				if e != nil {
					return sp, e
				}
				if r != nil {
					sp.push, sp.pushField = r, "configuration."+f.name
				}
			}
			if cfg.HistoryLength != nil && *cfg.HistoryLength < 0 {
				return sp, invalidParams("params.configuration.historyLength must be at least 0 (got %d)", *cfg.HistoryLength)
			}
			sp.wait = !cfg.ReturnImmediately
			sp.history = cfg.HistoryLength
		}
	}
	in, err := checkMessage(m)
	if err != nil {
		return sp, toRPCError(err)
	}
	sp.msg = in
	return sp, nil
}

// start posts the message as a chat into the context's session. A message
// naming a task continues nothing: tasks end with their run, so it is
// refused with the reason; the conversation goes on in the same contextId.
func (s *Server) start(ctx context.Context, c *call, sp sendParams) (api.ChatResult, string, *rpcError) {
	if id := strings.TrimSpace(sp.msg.TaskID); id != "" {
		run, e := s.taskRun(ctx, c, id)
		if e != nil {
			return api.ChatResult{}, "", e
		}
		if ctxID := sp.msg.ContextID; ctxID != "" && ctxID != ContextOf(run.SessionKey) {
			return api.ChatResult{}, "", invalidParams("message.contextId %q is not the context of task %s", clip(ctxID), clip(id))
		}
		return api.ChatResult{}, "", newError(wire.CodeUnsupportedOperation, domain.CodeInvalid,
			"task %s is %s and takes no further messages: send a new message (no taskId) with contextId %q to continue the conversation",
			clip(id), StateOf(run.Status), ContextOf(run.SessionKey))
	}
	// contextIds are case-sensitive: SessionKey keeps "ABC" and "abc" apart.
	ctxID := sp.msg.ContextID
	if ctxID == "" {
		ctxID = derivedContextID(c.p.Name, c.p.Session, sp.msg.MessageID)
	}
	o := ownerOf(c.p)
	key := o.sessionKey(c.agent.ID, ctxID)
	if err := checkSessionKey(key); err != nil {
		return api.ChatResult{}, "", toRPCError(err)
	}
	res, err := s.opts.Service.Chat(ctx, c.p, api.ChatRequest{
		SessionKey:     key,
		Parent:         o.parent,
		Message:        sp.msg.Text,
		Channel:        Channel,
		SenderID:       c.p.Name,
		IdempotencyKey: sp.msg.MessageID,
		Chain:          sp.msg.Chain,
	})
	if err != nil {
		return api.ChatResult{}, "", toRPCError(err)
	}
	return res, ctxID, nil
}

// commandReply is the agent message answering a chat command (/stop …),
// which starts no run and so no task.
func commandReply(res api.ChatResult, ctxID string) *wire.Message {
	return &wire.Message{MessageID: newID(), ContextID: ctxID, Role: wire.RoleAgent,
		Parts: []wire.Part{wire.TextPart(res.Reply)}, Metadata: map[string]any{"command": res.Command}}
}

// checkSendPush refuses a message whose push config cannot be honoured,
// before its task exists.
func (s *Server) checkSendPush(sp sendParams) *rpcError {
	if sp.push == nil {
		return nil
	}
	if s.opts.Push == nil {
		return newError(wire.CodePushNotificationNotSupported, domain.CodeInvalid, "%s: push notifications are not supported", sp.pushField)
	}
	return s.checkPush("params."+sp.pushField, *sp.push)
}

// startPush stores the message's push config for the task it started.
func (s *Server) startPush(ctx context.Context, c *call, sp sendParams, run domain.Run) *rpcError {
	if sp.push == nil {
		return nil
	}
	_, e := s.addPush(ctx, c, run, *sp.push)
	return e
}

// sendMessage is SendMessage and message/send.
func (s *Server) sendMessage(w http.ResponseWriter, r *http.Request, c *call) {
	sp, e := decodeSend(c)
	if e == nil {
		e = s.checkSendPush(sp)
	}
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	ctx := r.Context()
	res, ctxID, e := s.start(ctx, c, sp)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if res.Command != "" {
		writeRPC(w, c.id, s.messageResult(c, commandReply(res, ctxID)), nil)
		return
	}
	run := res.Run
	if e := s.startPush(ctx, c, sp, run); e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if sp.wait && !domain.RunTerminal(run.Status) {
		var err error
		run, err = s.waitEnd(ctx, c.p, run.ID)
		if err != nil {
			writeRPC(w, c.id, nil, toRPCError(err))
			return
		}
	}
	writeRPC(w, c.id, s.taskResult(c, TaskOf(run, sp.history), true), nil)
}

// waitEnd waits until a run has ended (or ctx ends: the client went away
// or the gateway stops; the run goes on either way).
func (s *Server) waitEnd(ctx context.Context, p api.Principal, runID string) (domain.Run, error) {
	for {
		run, err := s.opts.Service.WaitRun(ctx, p, api.WaitRequest{RunID: runID, Timeout: time.Duration(api.WaitTimeout.Max) * time.Second})
		if err != nil {
			return domain.Run{}, err
		}
		if domain.RunTerminal(run.Status) {
			return run, nil
		}
		if ctx.Err() != nil {
			return domain.Run{}, ctx.Err()
		}
	}
}

// taskRun is the run of a task of this agent that the caller may see and,
// for a caller with a requester session, not another owner's A2A
// conversation; anything else is TaskNotFoundError.
func (s *Server) taskRun(ctx context.Context, c *call, id string) (domain.Run, *rpcError) {
	id = strings.TrimSpace(id)
	if id == "" {
		return domain.Run{}, invalidParams("params.id is required")
	}
	run, err := s.opts.Service.GetRun(ctx, c.p, id)
	if err != nil {
		if domain.ErrorCode(err) == domain.CodeNotFound {
			return domain.Run{}, taskNotFound(id)
		}
		return domain.Run{}, toRPCError(err)
	}
	if !strings.EqualFold(run.AgentID, c.agent.ID) || !ownerOf(c.p).reaches(run.SessionKey) {
		return domain.Run{}, taskNotFound(id)
	}
	return run, nil
}

// taskQuery reads the params of GetTask / tasks/get.
func taskQuery(c *call) (string, *int32, *rpcError) {
	if c.gen == gen03 {
		return decodeLegacyQuery(c.params)
	}
	var q wire.GetTaskRequest
	if e := decodeParams(c.params, &q); e != nil {
		return "", nil, e
	}
	if q.HistoryLength != nil && *q.HistoryLength < 0 {
		return "", nil, invalidParams("params.historyLength must be at least 0 (got %d)", *q.HistoryLength)
	}
	return q.ID, q.HistoryLength, nil
}

// getTask is GetTask and tasks/get: the task of a run, from the store, so
// it answers after a restart too.
func (s *Server) getTask(w http.ResponseWriter, r *http.Request, c *call) {
	id, history, e := taskQuery(c)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	run, e := s.taskRun(r.Context(), c, id)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	writeRPC(w, c.id, s.taskResult(c, TaskOf(run, history), false), nil)
}

// taskID reads the params of CancelTask / SubscribeToTask and their 0.3
// forms: {id}.
func taskID(c *call) (string, *rpcError) {
	var q struct {
		ID string `json:"id"`
	}
	if e := decodeParams(c.params, &q); e != nil {
		return "", e
	}
	return q.ID, nil
}

// cancelTask is CancelTask and tasks/cancel: runs.cancel, which cascades
// to what the run started; a task that has already ended is
// TaskNotCancelableError.
func (s *Server) cancelTask(w http.ResponseWriter, r *http.Request, c *call) {
	id, e := taskID(c)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	ctx := r.Context()
	run, e := s.taskRun(ctx, c, id)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	// The gate decides first (a reader may not cancel, ended task or
	// not); an authorized cancel of an ended run changes nothing.
	res, err := s.opts.Service.CancelRun(ctx, c.p, run.ID)
	if err != nil {
		writeRPC(w, c.id, nil, toRPCError(err))
		return
	}
	if !res.Cancelled {
		writeRPC(w, c.id, nil, newError(wire.CodeTaskNotCancelable, domain.CodeConflict, "task %s has already ended (%s)", clip(run.ID), StateOf(res.Status)))
		return
	}
	writeRPC(w, c.id, s.taskResult(c, TaskOf(res.Run, nil), false), nil)
}

// taskResult shapes a task for the call's generation: 1.0 SendMessage
// wraps it ({task}); GetTask and CancelTask return it bare; 0.3 returns
// the 0.3 task.
func (s *Server) taskResult(c *call, t wire.Task, wrap bool) any {
	if c.gen == gen03 {
		return legacyTask(t)
	}
	if wrap {
		return wire.SendMessageResponse{Task: &t}
	}
	return t
}

// messageResult shapes an agent message for the call's generation.
func (s *Server) messageResult(c *call, m *wire.Message) any {
	if c.gen == gen03 {
		return legacyMessage(*m)
	}
	return wire.SendMessageResponse{Message: m}
}
