package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Roles of transcript messages.
const (
	RoleUser       = "user"
	RoleAssistant  = "assistant"
	RoleToolResult = "toolResult"
)

// Block types inside message content.
const (
	BlockText     = "text"
	BlockToolCall = "toolCall"
	BlockImage    = "image"
	BlockThinking = "thinking"
)

// Provenance kinds stamped on user messages.
const (
	// ProvenanceExternalUser: a person's message arriving on a channel.
	ProvenanceExternalUser = "external_user"
	// ProvenanceInterSession: a message another session sent
	// (sessions_send, a spawn's task, a sub-agent's announce).
	ProvenanceInterSession = "inter_session"
	// ProvenanceInternalSystem: text switchboard wrote for its own reasons.
	ProvenanceInternalSystem = "internal_system"
	// ProvenanceA2AStep: a step prompt of an agent-to-agent exchange that
	// switchboard wrote (a reply-back turn, the announce step); Step says
	// which, SourceSessionKey the other side. Never the sender's own text.
	ProvenanceA2AStep = "a2a_step"
	// ProvenanceFork: a message copied from SourceSessionKey's transcript
	// into a child spawned with context "fork".
	ProvenanceFork = "fork"
)

// Steps of an agent-to-agent exchange, in Provenance.Step.
const (
	// A2AStepReply is a reply-back (ping-pong) turn.
	A2AStepReply = "reply"
	// A2AStepAnnounce is the announce step on the target.
	A2AStepAnnounce = "announce"
)

// Block is one piece of message content. Which fields are set depends on Type.
type Block struct {
	Type              string          `json:"type"`
	Text              string          `json:"text,omitempty"`
	TextSignature     string          `json:"textSignature,omitempty"`
	Thinking          string          `json:"thinking,omitempty"`
	ThinkingSignature string          `json:"thinkingSignature,omitempty"`
	ID                string          `json:"id,omitempty"`
	Name              string          `json:"name,omitempty"`
	Arguments         json.RawMessage `json:"arguments,omitempty"`
	Data              string          `json:"data,omitempty"`
	MimeType          string          `json:"mimeType,omitempty"`
	Omitted           bool            `json:"omitted,omitempty"`
	Bytes             int             `json:"bytes,omitempty"`
}

// TextBlock returns a text block.
func TextBlock(s string) Block { return Block{Type: BlockText, Text: s} }

// Content is a message body. The raw transcript format allows either a bare
// string or an array of blocks; Content remembers which one it was so a
// transcript round-trips unchanged.
type Content struct {
	blocks []Block
	plain  bool
}

// TextContent returns content that serializes as a bare JSON string.
func TextContent(s string) Content {
	return Content{blocks: []Block{TextBlock(s)}, plain: true}
}

// BlockContent returns content that serializes as an array of blocks.
func BlockContent(blocks ...Block) Content {
	return Content{blocks: blocks}
}

// Blocks returns the content's blocks (a plain string is one text block).
func (c Content) Blocks() []Block { return c.blocks }

// IsPlain reports whether the content serializes as a bare string.
func (c Content) IsPlain() bool { return c.plain }

// Text joins the text of every text block.
func (c Content) Text() string {
	var parts []string
	for _, b := range c.blocks {
		if b.Type == BlockText {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ToolCalls returns the toolCall blocks.
func (c Content) ToolCalls() []Block {
	var out []Block
	for _, b := range c.blocks {
		if b.Type == BlockToolCall {
			out = append(out, b)
		}
	}
	return out
}

// MarshalJSON writes a bare string for plain content and an array otherwise.
func (c Content) MarshalJSON() ([]byte, error) {
	if c.plain {
		return json.Marshal(c.Text())
	}
	if c.blocks == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(c.blocks)
}

// UnmarshalJSON accepts a string or an array of blocks.
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || string(b) == "null" {
		*c = Content{}
		return nil
	}
	if b[0] == '"' {
		if s, ok := plainJSONString(b); ok {
			*c = TextContent(s)
			return nil
		}
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*c = TextContent(s)
		return nil
	}
	if b[0] != '[' {
		return fmt.Errorf("content: want a string or an array of blocks")
	}
	var blocks []Block
	if err := json.Unmarshal(b, &blocks); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	*c = Content{blocks: blocks}
	return nil
}

// plainJSONString returns the text of a JSON string literal that needs no
// decoding (no escapes, no control characters, valid UTF-8), which is most
// stored text: listing with messageLimit decodes thousands of them.
func plainJSONString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	in := b[1 : len(b)-1]
	for _, ch := range in {
		if ch < 0x20 || ch == '"' || ch == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(in) {
		return "", false
	}
	return string(in), true
}

// Usage counts tokens (and cost when known) of one model call or a run.
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	TotalTokens int64 `json:"totalTokens"`
	Cost        *Cost `json:"cost,omitempty"`
}

// Add accumulates u2 into u.
func (u *Usage) Add(u2 Usage) {
	u.Input += u2.Input
	u.Output += u2.Output
	u.CacheRead += u2.CacheRead
	u.CacheWrite += u2.CacheWrite
	u.TotalTokens += u2.TotalTokens
	if u2.Cost != nil {
		if u.Cost == nil {
			u.Cost = &Cost{}
		}
		u.Cost.Input += u2.Cost.Input
		u.Cost.Output += u2.Cost.Output
		u.Cost.CacheRead += u2.Cost.CacheRead
		u.Cost.CacheWrite += u2.Cost.CacheWrite
		u.Cost.Total += u2.Cost.Total
	}
}

// Cost is a usage cost in US dollars.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Provenance says where a user message came from, so transcript readers can
// tell routed agent instructions from external user input.
type Provenance struct {
	Kind             string `json:"kind"`
	OriginSessionID  string `json:"originSessionId,omitempty"`
	SourceSessionKey string `json:"sourceSessionKey,omitempty"`
	SourceChannel    string `json:"sourceChannel,omitempty"`
	SourceTool       string `json:"sourceTool,omitempty"`
	SourceRunID      string `json:"sourceRunId,omitempty"`
	// Step is the agent-to-agent step of an a2a_step prompt.
	Step string `json:"step,omitempty"`
}

// Message is one transcript entry in OpenClaw's raw transcript format.
//
// Seq is assigned by the store (monotonic per session key) and ID is the
// 8-hex entry id of the JSONL mirror; neither is part of the message JSON.
type Message struct {
	Seq       int64  `json:"-"`
	ID        string `json:"-"`
	ParentID  string `json:"-"`
	SessionID string `json:"-"`
	RunID     string `json:"-"`

	Role       string      `json:"role"`
	Content    Content     `json:"content"`
	Timestamp  int64       `json:"timestamp"`
	Provenance *Provenance `json:"provenance,omitempty"`

	// Assistant fields.
	API          string `json:"api,omitempty"`
	Provider     string `json:"provider,omitempty"`
	Model        string `json:"model,omitempty"`
	Usage        *Usage `json:"usage,omitempty"`
	StopReason   string `json:"stopReason,omitempty"`
	ErrorMessage string `json:"errorMessage,omitempty"`

	// ToolResult fields.
	ToolCallID string          `json:"toolCallId,omitempty"`
	ToolName   string          `json:"toolName,omitempty"`
	IsError    *bool           `json:"isError,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`

	// Kind marks switchboard-specific message kinds (for example "announce"),
	// so UIs can show them as such. Empty for ordinary messages.
	Kind string `json:"kind,omitempty"`
}

// Stop reasons of assistant messages.
const (
	StopReasonStop    = "stop"
	StopReasonLength  = "length"
	StopReasonToolUse = "toolUse"
	StopReasonError   = "error"
	StopReasonAborted = "aborted"
)

// Bool returns a pointer to b, for optional boolean fields.
func Bool(b bool) *bool { return &b }
