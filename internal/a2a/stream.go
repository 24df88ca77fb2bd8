package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// eventBuffer is the engine subscription's buffer per stream. Events are
// best effort: the stream's end comes from a durable wait on the run, so
// a dropped event costs at most an intermediate status.
const eventBuffer = 64

// sse writes Server-Sent Events, each one JSON-RPC response carrying a
// stream result (the JSON-RPC binding's framing: "data: <json>\n\n").
type sse struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	id  json.RawMessage
	gen generation
	err error
}

func startSSE(w http.ResponseWriter, c *call) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, rc: http.NewResponseController(w), id: idOrNull(c.id), gen: c.gen}
	_ = s.rc.Flush()
	return s
}

// send writes one event; after a write error it does nothing.
func (s *sse) send(result any) {
	if s.err != nil {
		return
	}
	b, err := json.Marshal(result)
	if err != nil {
		s.err = err
		return
	}
	resp, _ := json.Marshal(wire.Response{JSONRPC: wire.JSONRPCVersion, ID: s.id, Result: b})
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", resp); err != nil {
		s.err = err
		return
	}
	s.err = s.rc.Flush()
}

// fail writes a JSON-RPC error as the stream's last event.
func (s *sse) fail(e *rpcError) {
	if s.err != nil {
		return
	}
	resp, _ := json.Marshal(wire.Response{JSONRPC: wire.JSONRPCVersion, ID: s.id, Error: e.wireError()})
	_, s.err = fmt.Fprintf(s.w, "data: %s\n\n", resp)
	_ = s.rc.Flush()
}

// task sends a task snapshot.
func (s *sse) task(t wire.Task) {
	if s.gen == gen03 {
		s.send(legacyTask(t))
		return
	}
	s.send(wire.StreamResponse{Task: &t})
}

// message sends an agent message (a command's answer: the stream ends).
func (s *sse) message(m *wire.Message) {
	if s.gen == gen03 {
		s.send(legacyMessage(*m))
		return
	}
	s.send(wire.StreamResponse{Message: m})
}

// status sends a status update; final marks the last (0.3 has a flag
// for it, 1.0 ends the stream after a terminal state).
func (s *sse) status(taskID, ctxID string, st wire.TaskStatus, final bool) {
	if s.gen == gen03 {
		s.send(&a2a.TaskStatusUpdateEvent{TaskID: a2a.TaskID(taskID), ContextID: ctxID, Status: legacyStatus(st), Final: final})
		return
	}
	s.send(wire.StreamResponse{StatusUpdate: &wire.TaskStatusUpdateEvent{TaskID: taskID, ContextID: ctxID, Status: st}})
}

// artifact sends an artifact update: a piece appended to what was sent
// (appendTo), or the artifact as it is now; last marks its final chunk.
func (s *sse) artifact(taskID, ctxID string, a wire.Artifact, appendTo, last bool) {
	if s.gen == gen03 {
		s.send(&a2a.TaskArtifactUpdateEvent{TaskID: a2a.TaskID(taskID), ContextID: ctxID, Artifact: legacyArtifact(a),
			Append: appendTo, LastChunk: last})
		return
	}
	s.send(wire.StreamResponse{ArtifactUpdate: &wire.TaskArtifactUpdateEvent{TaskID: taskID, ContextID: ctxID, Artifact: a,
		Append: appendTo, LastChunk: last}})
}

// sendStreaming is SendStreamingMessage and message/stream: the task
// snapshot, WORKING when the run starts, the reply artifact, and the final
// status, as the run's events say.
func (s *Server) sendStreaming(w http.ResponseWriter, r *http.Request, c *call) {
	sp, e := decodeSend(c)
	if e == nil {
		e = s.checkSendPush(sp)
	}
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	ctx := r.Context()
	// Subscribe before the run exists, so its start is not missed.
	events, stop := s.opts.Service.Subscribe(eventBuffer)
	defer stop()
	res, ctxID, e := s.start(ctx, c, sp)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if res.Command == "" {
		if e := s.startPush(ctx, c, sp, res.Run); e != nil {
			writeRPC(w, c.id, nil, e)
			return
		}
	}
	out := startSSE(w, c)
	if res.Command != "" {
		out.message(commandReply(res, ctxID))
		return
	}
	s.follow(ctx, c.p, out, res.Run, events, sp.history)
}

// subscribe is SubscribeToTask and tasks/resubscribe: the current task,
// then its updates until it ends. An ended task is
// UnsupportedOperationError, as the specification says.
func (s *Server) subscribe(w http.ResponseWriter, r *http.Request, c *call) {
	id, e := taskID(c)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	ctx := r.Context()
	events, stop := s.opts.Service.Subscribe(eventBuffer)
	defer stop()
	run, e := s.taskRun(ctx, c, id)
	if e != nil {
		writeRPC(w, c.id, nil, e)
		return
	}
	if domain.RunTerminal(run.Status) {
		writeRPC(w, c.id, nil, newError(wire.CodeUnsupportedOperation, domain.CodeInvalid,
			"task %s has already ended (%s): read it with GetTask", clip(run.ID), StateOf(run.Status)))
		return
	}
	s.follow(ctx, c.p, startSSE(w, c), run, events, nil)
}

// follow streams a run from the snapshot run until it ends, the client
// goes away or the gateway stops. The end comes from WaitRun (durable),
// the intermediate states from the engine's events.
func (s *Server) follow(ctx context.Context, p api.Principal, out *sse, run domain.Run, events <-chan domain.Event, history *int32) {
	ctxID := ContextOf(run.SessionKey)
	out.task(TaskOf(run, history))
	if domain.RunTerminal(run.Status) {
		s.finish(out, run, ctxID, nil)
		return
	}
	reply := &replyStream{runID: run.ID}
	wctx, cancel := context.WithCancel(ctx)
	type ended struct {
		run domain.Run
		err error
	}
	done := make(chan ended, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		r, err := s.waitEnd(wctx, p, run.ID)
		done <- ended{r, err}
	}()
	defer wg.Wait()
	defer cancel()
	state := StateOf(run.Status)
	tick := time.NewTicker(keepAliveEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// A request ended for a reason the client should read (its
			// credential revoked) says so as the stream's last event.
			var de *domain.Error
			if errors.As(context.Cause(ctx), &de) {
				out.fail(toRPCError(de))
			}
			return
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			switch {
			case ev.Kind == domain.EventDelta:
				if a, appendTo, ok := reply.piece(ev.Delta); ok {
					if state == wire.TaskStateSubmitted {
						state = wire.TaskStateWorking
						out.status(run.ID, ctxID, wire.TaskStatus{State: wire.TaskStateWorking, Timestamp: timestamp(ev.TS)}, false)
					}
					out.artifact(run.ID, ctxID, a, appendTo, false)
				}
			case ev.Kind == domain.EventRunStart && ev.Run != nil && ev.Run.ID == run.ID:
				if state == wire.TaskStateSubmitted {
					state = wire.TaskStateWorking
					out.status(run.ID, ctxID, statusOf(*ev.Run, ctxID), false)
				}
			case ev.Kind == domain.EventMessage && ev.Message != nil && ev.Message.RunID == run.ID:
				if m := progress(*ev.Message, run.ID, ctxID); m != nil {
					state = wire.TaskStateWorking
					out.status(run.ID, ctxID, wire.TaskStatus{State: wire.TaskStateWorking, Message: m, Timestamp: timestamp(ev.TS)}, false)
				}
			}
		case <-tick.C:
			out.keepAlive()
		case end := <-done:
			if end.err != nil {
				out.fail(toRPCError(end.err))
				return
			}
			s.finish(out, end.run, ctxID, reply)
			return
		}
		if out.err != nil {
			return
		}
	}
}

// keepAliveEvery is how often an idle stream gets an SSE comment, so
// proxies and clients do not take a long run for a dead connection.
const keepAliveEvery = 15 * time.Second

// keepAlive writes an SSE comment line (clients ignore it).
func (s *sse) keepAlive() {
	if s.err != nil {
		return
	}
	if _, err := fmt.Fprint(s.w, ": keep-alive\n\n"); err != nil {
		s.err = err
		return
	}
	s.err = s.rc.Flush()
}

// progress is the WORKING status message for a message the run stored
// before it ended: an assistant turn that calls tools (its text, and
// which tools). The final reply is not progress: it arrives as the
// artifact and the final status.
func progress(m domain.Message, runID, ctxID string) *wire.Message {
	if m.Role != domain.RoleAssistant {
		return nil
	}
	calls := m.Content.ToolCalls()
	if len(calls) == 0 {
		return nil
	}
	var names []string
	for _, c := range calls {
		names = append(names, c.Name)
	}
	text := strings.TrimSpace(m.Content.Text())
	if text != "" {
		text += "\n"
	}
	text += "calling " + strings.Join(names, ", ")
	id := m.ID
	if id == "" {
		id = fmt.Sprintf("%s-progress-%d", runID, m.Seq)
	}
	return &wire.Message{MessageID: id, ContextID: ctxID, TaskID: runID, Role: wire.RoleAgent,
		Parts: []wire.Part{wire.TextPart(text)}, Metadata: map[string]any{"toolCalls": names}}
}

// finish sends the reply artifact (if any) and the final status. With
// deltas streamed (reply), the artifact's last chunk completes what the
// client holds; otherwise it is the whole reply.
func (s *Server) finish(out *sse, run domain.Run, ctxID string, reply *replyStream) {
	if a, ok := replyArtifact(run); ok {
		appendTo := false
		if reply != nil {
			a, appendTo = reply.last(a, run.Reply)
		}
		out.artifact(run.ID, ctxID, a, appendTo, true)
	}
	out.status(run.ID, ctxID, statusOf(run, ctxID), true)
}
