package openai

import (
	"encoding/json"
	"errors"
	"strings"

	oai "github.com/openai/openai-go/v3"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

// message maps a completion onto an assistant transcript message.
func (p *Provider) message(res *oai.ChatCompletion, model string) (domain.Message, error) {
	if res == nil || len(res.Choices) == 0 {
		return domain.Message{}, modelerr.Malformed(p.name, errors.New("response has no choices"))
	}
	choice := res.Choices[0]
	msg := choice.Message

	var blocks []domain.Block
	// OpenAI keeps reasoning hidden; compatible servers (DeepSeek, vLLM,
	// Ollama, OpenRouter) return it under one of these names.
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if f, ok := msg.JSON.ExtraFields[key]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && strings.TrimSpace(s) != "" {
				blocks = append(blocks, domain.Block{Type: domain.BlockThinking, Thinking: s})
				break
			}
		}
	}
	if msg.Content != "" {
		blocks = append(blocks, domain.TextBlock(msg.Content))
	}
	if msg.Refusal != "" {
		blocks = append(blocks, domain.TextBlock(msg.Refusal))
	}
	for _, tc := range msg.ToolCalls {
		if tc.Type != "" && tc.Type != "function" {
			continue // custom tools are never offered, so never called
		}
		blocks = append(blocks, domain.Block{
			Type:      domain.BlockToolCall,
			ID:        tc.ID,
			Name:      tc.Function.Name,
			Arguments: arguments(tc.Function.Arguments),
		})
	}

	out := domain.Message{
		Role:      domain.RoleAssistant,
		Content:   domain.BlockContent(blocks...),
		Timestamp: p.now().UnixMilli(),
		API:       API,
		Provider:  p.name,
		Model:     model,
		Usage:     usage(res.Usage),
	}
	switch choice.FinishReason {
	case "stop":
		out.StopReason = domain.StopReasonStop
	case "length":
		out.StopReason = domain.StopReasonLength
	case "tool_calls", "function_call":
		out.StopReason = domain.StopReasonToolUse
	case "content_filter":
		out.StopReason = domain.StopReasonError
		out.ErrorMessage = p.name + ": the answer was stopped by the content filter"
	default:
		// Some compatible servers leave finish_reason empty or invent
		// their own; the content tells what happened.
		out.StopReason = domain.StopReasonStop
		if len(msg.ToolCalls) > 0 {
			out.StopReason = domain.StopReasonToolUse
		}
	}
	return out, nil
}

// arguments keeps a tool call's arguments as JSON. Models sometimes produce
// invalid JSON; it is kept as a JSON string rather than failing the turn, so
// the tool can refuse it and the model can try again.
func arguments(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s) // marshalling a string cannot fail
	return b
}

// usage maps token counts. Input excludes cached prompt tokens, which are
// counted as cacheRead (and prompt-cache writes as cacheWrite), the way
// Anthropic reports them, so sessions add up the same whatever the provider.
func usage(u oai.CompletionUsage) *domain.Usage {
	cached := u.PromptTokensDetails.CachedTokens
	written := u.PromptTokensDetails.CacheWriteTokens
	out := &domain.Usage{
		Input:       max(u.PromptTokens-cached-written, 0),
		Output:      u.CompletionTokens,
		CacheRead:   cached,
		CacheWrite:  written,
		TotalTokens: u.TotalTokens,
	}
	if out.TotalTokens == 0 {
		out.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	// OpenRouter reports what the call cost in US dollars.
	if f, ok := u.JSON.ExtraFields["cost"]; ok {
		var total float64
		if json.Unmarshal([]byte(f.Raw()), &total) == nil && total > 0 {
			out.Cost = &domain.Cost{Total: total}
		}
	}
	return out
}
