package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/toolpairs"
)

// omittedImage stands in for an image whose bytes the transcript no longer holds.
const omittedImage = "[image omitted]"

// params maps a model request onto Messages parameters.
func (p *Provider) params(req domain.ModelRequest) (sdk.MessageNewParams, error) {
	if req.Model == "" {
		return sdk.MessageNewParams{}, domain.Invalid("%s: model id is empty", p.name)
	}
	maxTokens := int64(req.MaxTokens)
	if maxTokens <= 0 {
		maxTokens = DefaultMaxTokens
	}
	params := sdk.MessageNewParams{Model: sdk.Model(req.Model), MaxTokens: maxTokens}
	if req.System != "" {
		params.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	msgs, err := messageParams(toolpairs.Repair(req.Messages))
	if err != nil {
		return params, domain.Invalid("%s: %v", p.name, err)
	}
	params.Messages = msgs
	for _, t := range req.Tools {
		tp := sdk.ToolParam{Name: t.Name}
		if err := toolSchema(t.InputSchema, &tp.InputSchema); err != nil {
			return params, domain.Invalid("%s: tool %q: %v", p.name, t.Name, err)
		}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ToolUnionParam{OfTool: &tp})
	}
	// Levels the model does not take are dropped rather than refused: a
	// session may keep a level from an earlier model, and the registry
	// refuses such levels when they are set.
	if budget, ok := thinkingBudget(req.Thinking); ok && thinkingModel(req.Model) {
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(budget)
		// max_tokens counts the thinking too; keep the asked-for room for
		// the answer on top of the budget.
		if params.MaxTokens <= budget {
			params.MaxTokens = budget + maxTokens
		}
	}
	return params, nil
}

// messageParams maps the transcript. Consecutive tool results become one
// user message, because the API wants every result of a turn's tool calls in
// the message right after it.
func messageParams(msgs []domain.Message) ([]sdk.MessageParam, error) {
	var out []sdk.MessageParam
	for i, m := range msgs {
		var blocks []sdk.ContentBlockParamUnion
		switch m.Role {
		case domain.RoleUser:
			blocks = userBlocks(m.Content)
			if len(blocks) > 0 {
				out = append(out, sdk.NewUserMessage(blocks...))
			}
		case domain.RoleAssistant:
			blocks = assistantBlocks(m.Content)
			if len(blocks) > 0 {
				out = append(out, sdk.NewAssistantMessage(blocks...))
			}
		case domain.RoleToolResult:
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("messages[%d]: toolResult without toolCallId", i)
			}
			block := toolResultBlock(m)
			if i > 0 && msgs[i-1].Role == domain.RoleToolResult && len(out) > 0 {
				last := &out[len(out)-1]
				last.Content = append(last.Content, block)
				continue
			}
			out = append(out, sdk.NewUserMessage(block))
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// userBlocks maps user content; the API refuses empty text blocks.
func userBlocks(c domain.Content) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, b := range c.Blocks() {
		switch b.Type {
		case domain.BlockText:
			if b.Text != "" {
				out = append(out, sdk.NewTextBlock(b.Text))
			}
		case domain.BlockImage:
			out = append(out, imageBlock(b))
		}
	}
	return out
}

func imageBlock(b domain.Block) sdk.ContentBlockParamUnion {
	if b.Omitted || b.Data == "" {
		return sdk.NewTextBlock(omittedImage)
	}
	return sdk.NewImageBlockBase64(b.MimeType, b.Data)
}

// assistantBlocks maps an assistant turn. Signed thinking goes back as it
// came (the API checks the signature); redacted thinking is kept in Data;
// unsigned thinking came from another provider and stays behind.
func assistantBlocks(c domain.Content) []sdk.ContentBlockParamUnion {
	var out []sdk.ContentBlockParamUnion
	for _, b := range c.Blocks() {
		switch b.Type {
		case domain.BlockThinking:
			switch {
			case b.ThinkingSignature != "":
				out = append(out, sdk.NewThinkingBlock(b.ThinkingSignature, b.Thinking))
			case b.Data != "":
				out = append(out, sdk.NewRedactedThinkingBlock(b.Data))
			}
		case domain.BlockText:
			if b.Text != "" {
				out = append(out, sdk.NewTextBlock(b.Text))
			}
		case domain.BlockToolCall:
			out = append(out, sdk.NewToolUseBlock(b.ID, toolInput(b.Arguments), b.Name))
		}
	}
	return out
}

// toolInput is a tool call's arguments as the JSON object tool_use needs.
// Arguments another provider kept as a non-object (invalid JSON it produced)
// are wrapped so nothing is lost.
func toolInput(args json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(args)
	switch {
	case len(trimmed) == 0 || string(trimmed) == "null":
		return json.RawMessage(`{}`)
	case trimmed[0] == '{' && json.Valid(trimmed):
		return trimmed
	}
	wrapped, err := json.Marshal(map[string]json.RawMessage{"arguments": trimmed})
	if err != nil || !json.Valid(trimmed) {
		wrapped, _ = json.Marshal(map[string]string{"arguments": string(trimmed)})
	}
	return wrapped
}

func toolResultBlock(m domain.Message) sdk.ContentBlockParamUnion {
	tr := sdk.ToolResultBlockParam{ToolUseID: m.ToolCallID}
	if m.IsError != nil && *m.IsError {
		tr.IsError = sdk.Bool(true)
	}
	for _, b := range m.Content.Blocks() {
		switch b.Type {
		case domain.BlockText:
			if b.Text != "" {
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
			}
		case domain.BlockImage:
			if b.Omitted || b.Data == "" {
				tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: omittedImage}})
				continue
			}
			img := sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
				Data: b.Data, MediaType: sdk.Base64ImageSourceMediaType(b.MimeType),
			}}}
			tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: &img})
		}
	}
	return sdk.ContentBlockParamUnion{OfToolResult: &tr}
}

// toolSchema decodes a tool's JSON schema into dst; an empty one takes no
// arguments.
func toolSchema(raw json.RawMessage, dst *sdk.ToolInputSchemaParam) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		dst.Properties = map[string]any{}
		return nil
	}
	var probe map[string]any
	if err := json.Unmarshal(raw, &probe); err != nil || probe == nil {
		return fmt.Errorf("input schema is not a JSON object")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("input schema: %w", err)
	}
	return nil
}
