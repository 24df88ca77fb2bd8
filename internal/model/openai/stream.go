package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

// stream sends one Chat Completions request with `stream: true` and
// `stream_options.include_usage`, hands each text and tool-call piece to
// onDelta as it arrives, and builds the same message Complete would from
// the chunks. A stream that breaks, reports an error event or ends before
// a finish reason is an error: the pieces already handed out were only
// a preview, nothing of them is stored.
func (p *Provider) stream(ctx context.Context, params oai.ChatCompletionNewParams, model string, onDelta domain.DeltaFunc) (domain.ModelResponse, error) {
	params.StreamOptions = oai.ChatCompletionStreamOptionsParam{IncludeUsage: oai.Bool(true)}
	callCtx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	var rec modelerr.Recorder
	st := p.svc.NewStreaming(callCtx, params, option.WithMiddleware(rec.Middleware))
	defer st.Close()
	var acc chunks
	for st.Next() {
		acc.add(st.Current(), onDelta)
	}
	if err := st.Err(); err != nil {
		var se *ssestream.StreamError
		if errors.As(err, &se) && ctx.Err() == nil {
			return domain.ModelResponse{}, &domain.Error{Code: domain.CodeUnavailable,
				Message: p.name + ": the stream ended with an error: " + modelerr.BodyMessage(se.Event.Data), Err: err}
		}
		return domain.ModelResponse{}, modelerr.Classify(ctx, p.name, p.timeout, &rec, err)
	}
	if err := ctx.Err(); err != nil {
		return domain.ModelResponse{}, fmt.Errorf("%s: %w", p.name, context.Cause(ctx))
	}
	// A finish reason ends a complete answer; so does the usage chunk
	// (include_usage sends it last), for servers that leave finish_reason
	// out. Neither: the stream was cut.
	if !acc.finished && !acc.hasUsage {
		return domain.ModelResponse{}, &domain.Error{Code: domain.CodeUnavailable,
			Message: p.name + ": the stream ended before the answer was complete (no finish_reason)"}
	}
	res := acc.completion()
	msg, err := p.message(&res, model)
	if err != nil {
		return domain.ModelResponse{}, err
	}
	if th := acc.reasoning.String(); strings.TrimSpace(th) != "" {
		blocks := append([]domain.Block{{Type: domain.BlockThinking, Thinking: th}}, msg.Content.Blocks()...)
		msg.Content = domain.BlockContent(blocks...)
	}
	return domain.ModelResponse{Message: msg}, nil
}

// chunks accumulates a streamed completion's first choice.
type chunks struct {
	text, refusal, reasoning strings.Builder
	calls                    map[int64]*callParts
	finish                   string
	finished                 bool
	usage                    oai.CompletionUsage
	hasUsage                 bool
}

type callParts struct {
	id, name string
	args     strings.Builder
	// pos is the call's position among the message's calls (the delta
	// Index clients see).
	pos int
}

// add takes one chunk and hands its pieces to onDelta.
func (c *chunks) add(ch oai.ChatCompletionChunk, onDelta domain.DeltaFunc) {
	if ch.JSON.Usage.Valid() && (ch.Usage.TotalTokens > 0 || ch.Usage.PromptTokens > 0) {
		c.usage, c.hasUsage = ch.Usage, true
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // one answer is asked for; others are ignored
		}
		d := choice.Delta
		if d.Content != "" {
			c.text.WriteString(d.Content)
			onDelta(domain.ModelDelta{Text: d.Content})
		}
		if d.Refusal != "" {
			c.refusal.WriteString(d.Refusal)
			onDelta(domain.ModelDelta{Text: d.Refusal})
		}
		for _, key := range []string{"reasoning_content", "reasoning"} {
			if f, ok := d.JSON.ExtraFields[key]; ok {
				var s string
				if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
					c.reasoning.WriteString(s)
					onDelta(domain.ModelDelta{Thinking: s})
					break
				}
			}
		}
		for _, tc := range d.ToolCalls {
			if c.calls == nil {
				c.calls = map[int64]*callParts{}
			}
			cp := c.calls[tc.Index]
			if cp == nil {
				cp = &callParts{pos: len(c.calls)}
				c.calls[tc.Index] = cp
			}
			piece := domain.ToolCallDelta{Index: cp.pos, Arguments: tc.Function.Arguments}
			if tc.ID != "" && cp.id == "" {
				cp.id, piece.ID = tc.ID, tc.ID
			}
			if tc.Function.Name != "" && cp.name == "" {
				cp.name, piece.Name = tc.Function.Name, tc.Function.Name
			}
			cp.args.WriteString(tc.Function.Arguments)
			if piece.ID != "" || piece.Name != "" || piece.Arguments != "" {
				onDelta(domain.ModelDelta{ToolCall: &piece})
			}
		}
		if choice.FinishReason != "" {
			c.finish, c.finished = choice.FinishReason, true
		}
	}
}

// completion is the accumulated answer as a non-streamed completion, so
// Complete's mapping (message) applies unchanged.
func (c *chunks) completion() oai.ChatCompletion {
	msg := oai.ChatCompletionMessage{Content: c.text.String(), Refusal: c.refusal.String()}
	idx := make([]int64, 0, len(c.calls))
	for i := range c.calls {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(a, b int) bool { return idx[a] < idx[b] })
	for _, i := range idx {
		cp := c.calls[i]
		msg.ToolCalls = append(msg.ToolCalls, oai.ChatCompletionMessageToolCallUnion{
			ID: cp.id, Type: "function",
			Function: oai.ChatCompletionMessageFunctionToolCallFunction{Name: cp.name, Arguments: cp.args.String()},
		})
	}
	res := oai.ChatCompletion{Choices: []oai.ChatCompletionChoice{{Message: msg, FinishReason: c.finish}}}
	if c.hasUsage {
		res.Usage = c.usage
	}
	return res
}
