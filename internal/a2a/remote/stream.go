package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"

	"go.opentelemetry.io/otel/attribute"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/tracing"
)

// sendStream sends msg as a stream (SendStreamingMessage, 0.3
// message/stream) to a remote whose card offers streaming, and follows
// the task's events until it stops. The first event names the task, so a
// caller that stops waiting (ctx done) can cancel it; a stream that ends
// before the task does is followed by polling.
func (c *Client) sendStream(ctx context.Context, r Remote, ep Endpoint, msg Message) (Result, error) {
	method, params := wire.MethodSendStreamingMessage, any(wire.SendMessageRequest{Message: modernMessage(msg)})
	if ep.Version == wire.LegacyVersion {
		method, params = wire.LegacyMethodStreamMessage, legacyParams(msg, true)
	}
	sctx, span := tracing.StartClient(ctx, "a2a "+method, attribute.String("rpc.system", "jsonrpc"), attribute.String("rpc.method", method))
	defer span.End(nil)
	req := detach(sctx)
	defer req.end()
	resp, err := c.post(req.ctx, r, ep, method, params, "text/event-stream")
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, context.Cause(ctx)
		}
		return Result{}, err
	}
	defer resp.Body.Close()
	if ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); ct != "text/event-stream" {
		// An answer instead of a stream: an error, or a server that does
		// not stream after all and answers as SendMessage does.
		var raw json.RawMessage
		if err := c.decodeAnswer(req.ctx, resp, method, &raw); err != nil {
			return Result{}, err
		}
		return c.answered(ctx, r, ep, raw)
	}
	if err := httpStatus(resp, method); err != nil {
		return Result{}, err
	}
	var st streamState
	done, err := readEvents(resp.Body, func(data []byte) (bool, error) {
		var rpc wire.Response
		if err := json.Unmarshal(data, &rpc); err != nil {
			return false, fmt.Errorf("%w: %s event is not JSON-RPC: %v", ErrProtocol, method, err)
		}
		var raw json.RawMessage
		if err := result(rpc, method, &raw); err != nil {
			return false, err
		}
		done, err := st.apply(raw, ep.Version)
		if st.task.ID != "" {
			req.named(ctx)
		}
		return done, err
	})
	switch {
	case ctx.Err() != nil:
		c.cancelTask(r, ep, st.task.ID)
		return Result{}, context.Cause(ctx)
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return Result{}, err
	case st.message != nil:
		return Result{Reply: partsText(st.message.Parts), Version: ep.Version}, nil
	case done:
		return taskResult(st.task, ep.Version)
	case st.task.ID == "":
		return Result{}, fmt.Errorf("%w: %s ended before naming a task", ErrProtocol, method)
	}
	// The stream ended (or broke) before the task: ask for it.
	return c.poll(ctx, r, ep, st.task)
}

// answered is the Result of a send's answer: a message, or a task
// followed until it stops.
func (c *Client) answered(ctx context.Context, r Remote, ep Endpoint, raw json.RawMessage) (Result, error) {
	var st streamState
	done, err := st.apply(raw, ep.Version)
	switch {
	case err != nil:
		return Result{}, err
	case st.message != nil:
		return Result{Reply: partsText(st.message.Parts), Version: ep.Version}, nil
	case st.task.ID == "":
		return Result{}, fmt.Errorf("%w: the answer is neither a task nor a message", ErrProtocol)
	case done:
		return taskResult(st.task, ep.Version)
	}
	return c.poll(ctx, r, ep, st.task)
}

// poll reads a task (GetTask, 0.3 tasks/get) until it stops; when ctx
// ends first, the remote is asked to cancel it.
func (c *Client) poll(ctx context.Context, r Remote, ep Endpoint, task wire.Task) (Result, error) {
	for delay := c.pollFirst; !task.Status.State.Terminal() && !task.Status.State.Interrupted(); delay = min(2*delay, c.pollMax) {
		if err := wait(ctx, delay); err != nil {
			c.cancelTask(r, ep, task.ID)
			return Result{}, err
		}
		next, err := c.getTask(ctx, r, ep, task.ID)
		if err != nil {
			if ctx.Err() != nil {
				c.cancelTask(r, ep, task.ID)
			}
			return Result{}, err
		}
		task = next
	}
	return taskResult(task, ep.Version)
}

// getTask reads a task in either generation.
func (c *Client) getTask(ctx context.Context, r Remote, ep Endpoint, id string) (wire.Task, error) {
	if ep.Version == wire.LegacyVersion {
		var next legacyResult
		if err := c.call(ctx, r, ep, wire.LegacyMethodGetTask, legacyTaskID{ID: id}, &next); err != nil {
			return wire.Task{}, err
		}
		return next.modern()
	}
	var next wire.Task
	err := c.call(ctx, r, ep, wire.MethodGetTask, wire.GetTaskRequest{ID: id}, &next)
	return next, err
}

// streamState is what the events of a stream said so far.
type streamState struct {
	task    wire.Task
	message *wire.Message
}

// apply takes one event (a task, a message, a status or an artifact
// update, in the endpoint's generation); done reports that the task
// stopped or a message answered.
func (s *streamState) apply(raw json.RawMessage, version string) (done bool, err error) {
	var ev wire.StreamResponse
	if version == wire.LegacyVersion {
		if ev, err = legacyEvent(raw); err != nil {
			return false, err
		}
	} else if err := json.Unmarshal(raw, &ev); err != nil {
		return false, fmt.Errorf("%w: stream event: %v", ErrProtocol, err)
	}
	switch {
	case ev.Message != nil:
		s.message = ev.Message
		return true, nil
	case ev.Task != nil:
		s.task = *ev.Task
	case ev.StatusUpdate != nil:
		if s.task.ID == "" {
			s.task.ID, s.task.ContextID = ev.StatusUpdate.TaskID, ev.StatusUpdate.ContextID
		}
		s.task.Status = ev.StatusUpdate.Status
	case ev.ArtifactUpdate != nil:
		if s.task.ID == "" {
			s.task.ID, s.task.ContextID = ev.ArtifactUpdate.TaskID, ev.ArtifactUpdate.ContextID
		}
		s.addArtifact(ev.ArtifactUpdate.Artifact, ev.ArtifactUpdate.Append)
	default:
		return false, fmt.Errorf("%w: stream event is neither a task, a message nor an update", ErrProtocol)
	}
	st := s.task.Status.State
	return st.Terminal() || st.Interrupted(), nil
}

// addArtifact applies an artifact update: a piece appended to the
// artifact of the same id, or the artifact as it is now.
func (s *streamState) addArtifact(a wire.Artifact, appendTo bool) {
	for i := range s.task.Artifacts {
		if a.ArtifactID != "" && s.task.Artifacts[i].ArtifactID == a.ArtifactID {
			if appendTo {
				s.task.Artifacts[i].Parts = append(s.task.Artifacts[i].Parts, a.Parts...)
			} else {
				s.task.Artifacts[i] = a
			}
			return
		}
	}
	s.task.Artifacts = append(s.task.Artifacts, a)
}

// maxEventBytes bounds one event of a stream.
const maxEventBytes = maxResponseBytes

// readEvents reads Server-Sent Events, handing each event's data to
// each until it says done; done is false when the stream ended first.
func readEvents(body io.Reader, each func([]byte) (bool, error)) (done bool, err error) {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	var data bytes.Buffer
	flush := func() (bool, error) {
		if data.Len() == 0 {
			return false, nil
		}
		defer data.Reset()
		return each(data.Bytes())
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if done, err := flush(); done || err != nil {
				return done, err
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(v, " "))
		}
		// Comments (keep-alives), event names and ids carry nothing here.
	}
	if err := sc.Err(); err != nil {
		return false, fmt.Errorf("%w: reading the stream: %v", io.ErrUnexpectedEOF, err)
	}
	return flush()
}
