package domain

import (
	"context"
	"encoding/json"
)

// ToolSpec describes a tool to a model: its name, what it does and the JSON
// schema of its arguments.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// ModelRequest is one call of a model.
type ModelRequest struct {
	// Model is the model id within the provider (after "provider/").
	Model string
	// System is the full system prompt including injected context.
	System   string
	Messages []Message
	Tools    []ToolSpec
	// Thinking is off|minimal|low|medium|high, or empty for the default.
	Thinking  string
	MaxTokens int

	// AgentID and SessionKey say who is calling; the script model matches on them.
	AgentID    string
	SessionKey string

	// OnDelta, when set, asks for streaming: a provider that can stream
	// calls it with each piece of the answer as it arrives, then returns
	// the whole message as usual. Providers that cannot stream ignore it.
	OnDelta DeltaFunc
}

// ModelResponse is the assistant message a model produced (content blocks
// of text, thinking and toolCall; Usage; StopReason).
type ModelResponse struct {
	Message Message
}

// Provider is a model API: the built-in script model, an OpenAI-compatible
// Chat Completions endpoint, or Anthropic Messages.
type Provider interface {
	// Name is the provider name used in model references ("openai").
	Name() string
	// Complete calls the model. It honours ctx cancellation at once.
	Complete(ctx context.Context, req ModelRequest) (ModelResponse, error)
	// ThinkingLevels lists the thinking levels the model accepts.
	ThinkingLevels(model string) []string
}

// ToolCallContext is what a tool knows about the run that called it.
type ToolCallContext struct {
	SessionKey  string
	AgentID     string
	RunID       string
	ParentRunID string
	ToolCallID  string
	Sandboxed   bool
	SpawnDepth  int
	// Channel is the requester session's channel, when known.
	Channel string
}

// ToolResult is what a tool returns to the model.
type ToolResult struct {
	Content []Block
	// Details is the structured payload (the JSON object the tool produced).
	Details json.RawMessage
	IsError bool
	// EndTurn ends the run after this tool call (sessions_yield): no
	// further model call; EndReply becomes the run's reply.
	EndTurn  bool
	EndReply string
}
