package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	oai "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/toolpairs"
)

// omittedImage stands in for an image whose bytes the transcript no longer
// holds, or that a message kind cannot carry.
const omittedImage = "[image omitted]"

// params maps a model request onto Chat Completions parameters.
func (p *Provider) params(req domain.ModelRequest) (oai.ChatCompletionNewParams, error) {
	if req.Model == "" {
		return oai.ChatCompletionNewParams{}, domain.Invalid("%s: model id is empty", p.name)
	}
	params := oai.ChatCompletionNewParams{Model: req.Model}
	if req.System != "" {
		params.Messages = append(params.Messages, oai.SystemMessage(req.System))
	}
	for i, m := range toolpairs.Repair(req.Messages) {
		mp, ok, err := messageParam(m)
		if err != nil {
			return params, domain.Invalid("%s: messages[%d]: %v", p.name, i, err)
		}
		if ok {
			params.Messages = append(params.Messages, mp)
		}
	}
	for _, t := range req.Tools {
		schema, err := toolSchema(t.InputSchema)
		if err != nil {
			return params, domain.Invalid("%s: tool %q: %v", p.name, t.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: schema}
		if t.Description != "" {
			def.Description = oai.String(t.Description)
		}
		params.Tools = append(params.Tools, oai.ChatCompletionFunctionTool(def))
	}
	if req.MaxTokens > 0 {
		// OpenAI deprecated max_tokens (reasoning models refuse it); the
		// compatible servers do not all know its successor.
		if p.official {
			params.MaxCompletionTokens = oai.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = oai.Int(int64(req.MaxTokens))
		}
	}
	if effort := p.effort(req.Model, req.Thinking); effort != "" {
		params.ReasoningEffort = shared.ReasoningEffort(effort)
	}
	return params, nil
}

// effort returns the reasoning_effort for a thinking level, or "" to omit
// it: off, the default, and levels the model does not take (a session may
// keep a level from an earlier model; the registry refuses such levels up
// front, so dropping it here keeps old sessions working).
func (p *Provider) effort(model, level string) string {
	if level == "" || level == "off" {
		return ""
	}
	for _, l := range p.ThinkingLevels(model) {
		if l == level {
			return level
		}
	}
	return ""
}

// messageParam maps one transcript message. ok is false for messages that
// carry nothing the API can take (an empty aborted assistant turn).
func messageParam(m domain.Message) (mp oai.ChatCompletionMessageParamUnion, ok bool, err error) {
	switch m.Role {
	case domain.RoleUser:
		return userParam(m.Content), true, nil
	case domain.RoleAssistant:
		return assistantParam(m.Content)
	case domain.RoleToolResult:
		if m.ToolCallID == "" {
			return mp, false, fmt.Errorf("toolResult without toolCallId")
		}
		return oai.ToolMessage(toolResultText(m.Content), m.ToolCallID), true, nil
	default:
		return mp, false, fmt.Errorf("unknown role %q", m.Role)
	}
}

func userParam(c domain.Content) oai.ChatCompletionMessageParamUnion {
	hasImage := false
	for _, b := range c.Blocks() {
		hasImage = hasImage || b.Type == domain.BlockImage
	}
	if !hasImage {
		return oai.UserMessage(c.Text())
	}
	var parts []oai.ChatCompletionContentPartUnionParam
	for _, b := range c.Blocks() {
		switch b.Type {
		case domain.BlockText:
			parts = append(parts, oai.TextContentPart(b.Text))
		case domain.BlockImage:
			if b.Omitted || b.Data == "" {
				parts = append(parts, oai.TextContentPart(omittedImage))
				continue
			}
			parts = append(parts, oai.ImageContentPart(oai.ChatCompletionContentPartImageImageURLParam{
				URL: "data:" + b.MimeType + ";base64," + b.Data,
			}))
		}
	}
	return oai.UserMessage(parts)
}

// assistantParam keeps text and tool calls; thinking blocks stay behind
// because Chat Completions has no way to send them back.
func assistantParam(c domain.Content) (oai.ChatCompletionMessageParamUnion, bool, error) {
	var a oai.ChatCompletionAssistantMessageParam
	if text := c.Text(); text != "" {
		a.Content.OfString = oai.String(text)
	}
	for _, b := range c.ToolCalls() {
		args := strings.TrimSpace(string(b.Arguments))
		var s string
		switch {
		case args == "" || args == "null":
			args = "{}"
		case args[0] == '"' && json.Unmarshal(b.Arguments, &s) == nil:
			// Arguments the model sent as invalid JSON were kept as a
			// string; hand back exactly what it sent.
			args = s
		}
		a.ToolCalls = append(a.ToolCalls, oai.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &oai.ChatCompletionMessageFunctionToolCallParam{
				ID:       b.ID,
				Function: oai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: b.Name, Arguments: args},
			},
		})
	}
	if a.Content.OfString.Valid() || len(a.ToolCalls) > 0 {
		return oai.ChatCompletionMessageParamUnion{OfAssistant: &a}, true, nil
	}
	return oai.ChatCompletionMessageParamUnion{}, false, nil
}

// toolResultText is a tool result as the text a tool message can carry.
func toolResultText(c domain.Content) string {
	var parts []string
	for _, b := range c.Blocks() {
		switch b.Type {
		case domain.BlockText:
			parts = append(parts, b.Text)
		case domain.BlockImage:
			parts = append(parts, omittedImage)
		}
	}
	return strings.Join(parts, "\n")
}

// toolSchema decodes a tool's JSON schema; an empty one takes no arguments.
func toolSchema(raw json.RawMessage) (shared.FunctionParameters, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}, nil
	}
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil || schema == nil {
		return nil, fmt.Errorf("input schema is not a JSON object")
	}
	return schema, nil
}
