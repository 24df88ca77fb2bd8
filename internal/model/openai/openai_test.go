package openai

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
)

var cmpContent = cmp.AllowUnexported(domain.Content{})

func call(id, name, args string) domain.Block {
	return domain.Block{Type: domain.BlockToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func TestCompleteResponses(t *testing.T) {
	tests := []struct {
		name     string
		fixture  string
		official bool
		model    string
		want     domain.Message
	}{
		{
			name: "text reply with cached prompt tokens", fixture: "text_reply.json", official: true, model: "gpt-4.1-mini",
			want: domain.Message{
				Content:    domain.BlockContent(domain.TextBlock("The main session is idle; nothing is queued.")),
				Usage:      &domain.Usage{Input: 337, Output: 12, CacheRead: 1536, TotalTokens: 1885},
				StopReason: domain.StopReasonStop,
			},
		},
		{
			name: "one tool call", fixture: "tool_call.json", official: true, model: "gpt-4.1-mini",
			want: domain.Message{
				Content:    domain.BlockContent(call("call_Qm8xV2bN4kL7pR1sT9wY3zA6", "sessions_list", `{"limit":5,"kinds":["main","group"]}`)),
				Usage:      &domain.Usage{Input: 642, Output: 24, TotalTokens: 666},
				StopReason: domain.StopReasonToolUse,
			},
		},
		{
			name: "several tool calls in one turn", fixture: "tool_calls_parallel.json", official: true, model: "gpt-4.1",
			want: domain.Message{
				Content: domain.BlockContent(
					domain.TextBlock("Asking both agents now."),
					call("call_A1b2C3d4E5f6G7h8I9j0K1l2", "sessions_send", `{"sessionKey":"agent:research:main","message":"Summarise today's findings.","timeoutSeconds":0}`),
					call("call_M3n4O5p6Q7r8S9t0U1v2W3x4", "sessions_spawn", `{"task":"Draft the weekly report","label":"weekly"}`),
					call("call_Y5z6A7b8C9d0E1f2G3h4I5j6", "agents_list", `{}`),
				),
				Usage:      &domain.Usage{Input: 290, Output: 97, CacheRead: 1920, TotalTokens: 2307},
				StopReason: domain.StopReasonToolUse,
			},
		},
		{
			name: "reasoning model usage", fixture: "reasoning.json", official: true, model: "o3",
			want: domain.Message{
				Content:    domain.BlockContent(domain.TextBlock("Spawn depth 2 is refused because maxSpawnDepth is 1.")),
				Usage:      &domain.Usage{Input: 980, Output: 1466, TotalTokens: 2446},
				StopReason: domain.StopReasonStop,
			},
		},
		{
			name: "compatible server: reasoning text and invalid tool arguments", fixture: "compat_reasoning.json", model: "qwen3:8b",
			want: domain.Message{
				Content: domain.BlockContent(
					domain.Block{Type: domain.BlockThinking, Thinking: "The user wants the history of the research session, so I call sessions_history."},
					call("call_x7k2m9qp", "sessions_history", `"{\"sessionKey\": \"agent:research:main\", \"limit\": 10"`),
				),
				Usage:      &domain.Usage{Input: 412, Output: 58, TotalTokens: 470},
				StopReason: domain.StopReasonToolUse,
			},
		},
		{
			name: "openrouter reports cost, length stop", fixture: "openrouter_cost.json", model: "anthropic/claude-sonnet-4.5",
			want: domain.Message{
				Content:    domain.BlockContent(domain.TextBlock("Here is the first part of the report")),
				Usage:      &domain.Usage{Input: 120, Output: 16, TotalTokens: 136, Cost: &domain.Cost{Total: 0.0006}},
				StopReason: domain.StopReasonLength,
			},
		},
		{
			name: "content filter is an error stop", fixture: "content_filter.json", official: true, model: "gpt-4.1-mini",
			want: domain.Message{
				Content:      domain.BlockContent(),
				Usage:        &domain.Usage{Input: 50, TotalTokens: 50},
				StopReason:   domain.StopReasonError,
				ErrorMessage: "openai: the answer was stopped by the content filter",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.New(t, reply{File: tt.fixture})
			p := newProvider(t, f, nil)
			if tt.official {
				p = officialProvider(t, f)
			}
			resp, err := p.Complete(t.Context(), domain.ModelRequest{
				Model:    tt.model,
				Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Role, want.API, want.Provider, want.Model, want.Timestamp = "assistant", "openai-completions", "openai", tt.model, testNow.UnixMilli()
			if d := cmp.Diff(want, resp.Message, cmpContent); d != "" {
				t.Errorf("message (-want +got):\n%s", d)
			}
			if reqs := f.Requests(); len(reqs) != 1 || reqs[0].Path != "/v1/chat/completions" {
				t.Errorf("requests = %+v, want one POST to /v1/chat/completions", reqs)
			}
		})
	}
}

func TestRequestMapping(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := officialProvider(t, f)
	isErr := true
	req := domain.ModelRequest{
		Model:     "o4-mini",
		System:    "You are main.\nAgent-to-agent message context:\nfrom agent:b:main",
		Thinking:  "medium",
		MaxTokens: 2048,
		Messages: []domain.Message{
			{Role: domain.RoleUser, Content: domain.TextContent("what runs?")},
			{Role: domain.RoleUser, Content: domain.BlockContent(
				domain.TextBlock("see this"),
				domain.Block{Type: domain.BlockImage, Data: "aGVsbG8=", MimeType: "image/png"},
				domain.Block{Type: domain.BlockImage, Omitted: true, MimeType: "image/jpeg", Bytes: 4096},
			)},
			{Role: domain.RoleAssistant, Content: domain.BlockContent(
				domain.Block{Type: domain.BlockThinking, Thinking: "private", ThinkingSignature: "sig"},
				domain.TextBlock("Checking."),
				call("call_1", "sessions_list", `{"limit":5}`),
				call("call_2", "agents_list", ``),
				call("call_3", "sessions_history", `"{\"broken"`),
			)},
			{Role: domain.RoleToolResult, ToolCallID: "call_1", ToolName: "sessions_list", Content: domain.BlockContent(domain.TextBlock(`{"count":0}`))},
			{Role: domain.RoleToolResult, ToolCallID: "call_2", ToolName: "agents_list", IsError: &isErr, Content: domain.BlockContent(domain.TextBlock("tool not available: agents_list"))},
			{Role: domain.RoleToolResult, ToolCallID: "call_3", ToolName: "sessions_history", Content: domain.BlockContent(domain.TextBlock("bad"), domain.Block{Type: domain.BlockImage, Data: "x"})},
			{Role: domain.RoleAssistant, StopReason: domain.StopReasonAborted, Content: domain.BlockContent()},
			{Role: domain.RoleUser, Content: domain.TextContent("and now?")},
		},
		Tools: []domain.ToolSpec{
			{Name: "sessions_list", Description: "List sessions.", InputSchema: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer","minimum":1}},"additionalProperties":false}`)},
			{Name: "agents_list", InputSchema: nil},
		},
	}
	if _, err := p.Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests", len(reqs))
	}
	want := map[string]any{
		"model":                 "o4-mini",
		"reasoning_effort":      "medium",
		"max_completion_tokens": float64(2048),
		"messages": []any{
			map[string]any{"role": "system", "content": "You are main.\nAgent-to-agent message context:\nfrom agent:b:main"},
			map[string]any{"role": "user", "content": "what runs?"},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "see this"},
				map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,aGVsbG8="}},
				map[string]any{"type": "text", "text": "[image omitted]"},
			}},
			map[string]any{"role": "assistant", "content": "Checking.", "tool_calls": []any{
				map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "sessions_list", "arguments": `{"limit":5}`}},
				map[string]any{"id": "call_2", "type": "function", "function": map[string]any{"name": "agents_list", "arguments": `{}`}},
				map[string]any{"id": "call_3", "type": "function", "function": map[string]any{"name": "sessions_history", "arguments": `{"broken`}},
			}},
			map[string]any{"role": "tool", "tool_call_id": "call_1", "content": `{"count":0}`},
			map[string]any{"role": "tool", "tool_call_id": "call_2", "content": "tool not available: agents_list"},
			map[string]any{"role": "tool", "tool_call_id": "call_3", "content": "bad\n[image omitted]"},
			map[string]any{"role": "user", "content": "and now?"},
		},
		"tools": []any{
			map[string]any{"type": "function", "function": map[string]any{
				"name": "sessions_list", "description": "List sessions.",
				"parameters": map[string]any{"type": "object", "properties": map[string]any{"limit": map[string]any{"type": "integer", "minimum": float64(1)}}, "additionalProperties": false},
			}},
			map[string]any{"type": "function", "function": map[string]any{
				"name": "agents_list", "parameters": map[string]any{"type": "object", "properties": map[string]any{}},
			}},
		},
	}
	if d := cmp.Diff(want, reqs[0].Body); d != "" {
		t.Errorf("request body (-want +got):\n%s\nraw: %s", d, reqs[0].Raw)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer sk-test-123" {
		t.Errorf("Authorization = %q", got)
	}
}

func TestRequestOptions(t *testing.T) {
	tests := []struct {
		name      string
		official  bool
		model     string
		thinking  string
		maxTokens int
		want      map[string]any // expected values; nil = must be absent
	}{
		{"official non-reasoning model drops a level", true, "gpt-4.1-mini", "high", 0,
			map[string]any{"reasoning_effort": nil, "max_completion_tokens": nil, "max_tokens": nil}},
		{"official reasoning model takes minimal", true, "gpt-5-mini", "minimal", 100,
			map[string]any{"reasoning_effort": "minimal", "max_completion_tokens": float64(100), "max_tokens": nil}},
		{"off is omitted", true, "o3", "off", 0, map[string]any{"reasoning_effort": nil}},
		{"default is omitted", true, "o3", "", 0, map[string]any{"reasoning_effort": nil}},
		{"custom endpoint passes any level through", false, "llama3.2", "high", 300,
			map[string]any{"reasoning_effort": "high", "max_tokens": float64(300), "max_completion_tokens": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.New(t, reply{File: "text_reply.json"})
			p := newProvider(t, f, nil)
			if tt.official {
				p = officialProvider(t, f)
			}
			_, err := p.Complete(t.Context(), domain.ModelRequest{
				Model: tt.model, Thinking: tt.thinking, MaxTokens: tt.maxTokens,
				Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}},
			})
			if err != nil {
				t.Fatal(err)
			}
			body := f.Requests()[0].Body
			for k, want := range tt.want {
				got, ok := body[k]
				if want == nil && ok {
					t.Errorf("%s = %v, want it absent", k, got)
				}
				if want != nil && got != want {
					t.Errorf("%s = %v, want %v", k, got, want)
				}
			}
		})
	}
}

func TestNoAPIKeySendsNoAuthorization(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, func(c *Config) { c.APIKey = "" })
	t.Setenv("OPENAI_API_KEY", "sk-from-env-must-not-leak")
	if _, err := p.Complete(t.Context(), domain.ModelRequest{Model: "llama3.2"}); err != nil {
		t.Fatal(err)
	}
	if got := f.Requests()[0].Header.Get("Authorization"); got != "" {
		t.Errorf("Authorization = %q, want none", got)
	}
}

func TestThinkingLevels(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	official, custom := officialProvider(t, f), newProvider(t, f, nil)
	all := []string{"off", "minimal", "low", "medium", "high"}
	tests := []struct {
		p     *Provider
		model string
		want  []string
	}{
		{official, "gpt-4.1-mini", []string{"off"}},
		{official, "gpt-4o", []string{"off"}},
		{official, "o1", all},
		{official, "o3-mini", all},
		{official, "o4-mini", all},
		{official, "gpt-5", all},
		{official, "gpt-5-nano", all},
		{custom, "llama3.2", all},
		{custom, "gpt-4.1-mini", all},
	}
	for _, tt := range tests {
		if d := cmp.Diff(tt.want, tt.p.ThinkingLevels(tt.model)); d != "" {
			t.Errorf("%s official=%v: %s", tt.model, tt.p.official, d)
		}
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"bad scheme", Config{Name: "ollama", BaseURL: "ftp://x"}, `ollama: baseUrl "ftp://x": want an http or https URL`},
		{"no host", Config{BaseURL: "http://"}, `openai: baseUrl "http://": want an http or https URL`},
		{"negative retries", Config{MaxRetries: -1}, "openai: maxRetries -1 is negative"},
		{"negative timeout", Config{Timeout: -1}, "openai: timeout -1ns is negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
		})
	}
	p, err := New(Config{})
	if err != nil || p.Name() != "openai" || !p.official || p.timeout != DefaultTimeout {
		t.Errorf("defaults: %+v, %v", p, err)
	}
}

func TestInvalidRequest(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, nil)
	tests := []struct {
		name string
		req  domain.ModelRequest
		want string
	}{
		{"empty model", domain.ModelRequest{}, "openai: model id is empty"},
		{"bad schema", domain.ModelRequest{Model: "m", Tools: []domain.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`[1]`)}}}, `openai: tool "t": input schema is not a JSON object`},
		{"tool result without id", domain.ModelRequest{Model: "m", Messages: []domain.Message{
			{Role: domain.RoleAssistant, Content: domain.BlockContent(call("", "t", "{}"))},
			{Role: domain.RoleToolResult}}}, "openai: messages[1]: toolResult without toolCallId"},
		{"unknown role", domain.ModelRequest{Model: "m", Messages: []domain.Message{{Role: "system"}}}, `openai: messages[0]: unknown role "system"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Complete(t.Context(), tt.req)
			if err == nil || err.Error() != tt.want || domain.ErrorCode(err) != domain.CodeInvalid {
				t.Errorf("err = %v, want invalid %q", err, tt.want)
			}
		})
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d requests sent for invalid input", n)
	}
}

func TestToolPairsRepaired(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, nil)
	_, err := p.Complete(t.Context(), domain.ModelRequest{Model: "m", Messages: []domain.Message{
		{Role: domain.RoleToolResult, ToolCallID: "call_gone", Content: domain.BlockContent(domain.TextBlock("stray"))},
		{Role: domain.RoleUser, Content: domain.TextContent("go")},
		{Role: domain.RoleAssistant, Content: domain.BlockContent(call("call_9", "sessions_list", `{}`))},
		{Role: domain.RoleUser, Content: domain.TextContent("are you there?")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "assistant", "tool_calls": []any{
			map[string]any{"id": "call_9", "type": "function", "function": map[string]any{"name": "sessions_list", "arguments": "{}"}},
		}},
		map[string]any{"role": "tool", "tool_call_id": "call_9", "content": "tool call interrupted: no result was recorded"},
		map[string]any{"role": "user", "content": "are you there?"},
	}
	if d := cmp.Diff(want, f.Requests()[0].Body["messages"]); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}
