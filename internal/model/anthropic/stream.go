package anthropic

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

// stream sends one Messages request on the streaming API (message_start,
// content_block_start/delta/stop, message_delta, message_stop), hands
// text, thinking and tool-input pieces to onDelta as they arrive, and
// builds the same message Complete would (the SDK's Accumulate). A stream
// that breaks, sends an error event or ends before message_stop is an
// error: the pieces handed out were a preview, nothing of them is stored.
func (p *Provider) stream(ctx context.Context, params sdk.MessageNewParams, model string, onDelta domain.DeltaFunc) (domain.ModelResponse, error) {
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var rec modelerr.Recorder
	st := p.svc.NewStreaming(callCtx, params, option.WithMiddleware(rec.Middleware))
	defer st.Close()
	var (
		acc     sdk.Message
		stopped bool
		// toolPos maps a content block index to its position among the
		// message's tool calls.
		toolPos = map[int64]int{}
	)
	for st.Next() {
		ev := st.Current()
		if err := acc.Accumulate(ev); err != nil {
			return domain.ModelResponse{}, modelerr.Malformed(p.name, err)
		}
		switch ev.Type {
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				pos := len(toolPos)
				toolPos[ev.Index] = pos
				onDelta(domain.ModelDelta{ToolCall: &domain.ToolCallDelta{Index: pos, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				if ev.Delta.Text != "" {
					onDelta(domain.ModelDelta{Text: ev.Delta.Text})
				}
			case "thinking_delta":
				if ev.Delta.Thinking != "" {
					onDelta(domain.ModelDelta{Thinking: ev.Delta.Thinking})
				}
			case "input_json_delta":
				if pos, ok := toolPos[ev.Index]; ok && ev.Delta.PartialJSON != "" {
					onDelta(domain.ModelDelta{ToolCall: &domain.ToolCallDelta{Index: pos, Arguments: ev.Delta.PartialJSON}})
				}
			}
		case "message_stop":
			stopped = true
		}
	}
	if err := st.Err(); err != nil {
		// An error event after a 2xx start (overloaded mid-stream): a
		// later call may succeed.
		var ae *sdk.Error
		if errors.As(err, &ae) && ae.StatusCode < 400 && ctx.Err() == nil {
			return domain.ModelResponse{}, &domain.Error{Code: domain.CodeUnavailable,
				Message: p.name + ": the stream ended with an error: " + modelerr.BodyMessage([]byte(ae.RawJSON())), Err: err}
		}
		return domain.ModelResponse{}, modelerr.Classify(ctx, p.name, p.timeout, &rec, err)
	}
	if err := ctx.Err(); err != nil {
		return domain.ModelResponse{}, fmt.Errorf("%s: %w", p.name, context.Cause(ctx))
	}
	if !stopped {
		return domain.ModelResponse{}, &domain.Error{Code: domain.CodeUnavailable,
			Message: p.name + ": the stream ended before the answer was complete (no message_stop)"}
	}
	msg, err := p.message(&acc, model)
	if err != nil {
		return domain.ModelResponse{}, err
	}
	return domain.ModelResponse{Message: msg}, nil
}
