package anthropic

import (
	"encoding/json"
	"errors"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/modelerr"
)

// message maps a Messages response onto an assistant transcript message.
func (p *Provider) message(res *sdk.Message, model string) (domain.Message, error) {
	if res == nil || res.JSON.Content.Raw() == "" {
		return domain.Message{}, modelerr.Malformed(p.name, errors.New("response has no content"))
	}
	var blocks []domain.Block
	for _, b := range res.Content {
		switch b.Type {
		case "text":
			blocks = append(blocks, domain.TextBlock(b.Text))
		case "thinking":
			blocks = append(blocks, domain.Block{Type: domain.BlockThinking, Thinking: b.Thinking, ThinkingSignature: b.Signature})
		case "redacted_thinking":
			// Encrypted reasoning: nothing to show, but it must go back
			// to the API unchanged on the next turn.
			blocks = append(blocks, domain.Block{Type: domain.BlockThinking, Data: b.Data})
		case "tool_use":
			args := json.RawMessage(b.Input)
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage(`{}`)
			}
			blocks = append(blocks, domain.Block{Type: domain.BlockToolCall, ID: b.ID, Name: b.Name, Arguments: args})
		}
	}
	u := res.Usage
	out := domain.Message{
		Role:      domain.RoleAssistant,
		Content:   domain.BlockContent(blocks...),
		Timestamp: p.now().UnixMilli(),
		API:       API,
		Provider:  p.name,
		Model:     model,
		Usage: &domain.Usage{
			Input:       u.InputTokens,
			Output:      u.OutputTokens,
			CacheRead:   u.CacheReadInputTokens,
			CacheWrite:  u.CacheCreationInputTokens,
			TotalTokens: u.InputTokens + u.OutputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens,
		},
	}
	switch res.StopReason {
	case sdk.StopReasonMaxTokens, sdk.StopReasonModelContextWindowExceeded:
		out.StopReason = domain.StopReasonLength
	case sdk.StopReasonToolUse:
		out.StopReason = domain.StopReasonToolUse
	case sdk.StopReasonRefusal:
		out.StopReason = domain.StopReasonError
		out.ErrorMessage = p.name + ": the model declined to answer"
	default: // end_turn, stop_sequence, pause_turn
		out.StopReason = domain.StopReasonStop
		for _, b := range blocks {
			if b.Type == domain.BlockToolCall {
				out.StopReason = domain.StopReasonToolUse
			}
		}
	}
	return out, nil
}
