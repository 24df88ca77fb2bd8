package anthropic

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var (
	testNow    = time.UnixMilli(1_753_999_000_456)
	cmpContent = cmp.AllowUnexported(domain.Content{})
	hi         = domain.ModelRequest{Model: "claude-sonnet-4-5", Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}}}
)

type reply = fakeapi.Reply

func newProvider(t *testing.T, f *fakeapi.Server, mod func(*Config)) *Provider {
	t.Helper()
	cfg := Config{
		BaseURL:    f.URL,
		APIKey:     "sk-ant-test",
		MaxRetries: 2,
		HTTPClient: f.Client(),
		Now:        func() time.Time { return testNow },
	}
	if mod != nil {
		mod(&cfg)
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func call(id, name, args string) domain.Block {
	return domain.Block{Type: domain.BlockToolCall, ID: id, Name: name, Arguments: json.RawMessage(args)}
}

func TestCompleteResponses(t *testing.T) {
	tests := []struct {
		name    string
		fixture string
		model   string
		want    domain.Message
	}{
		{
			name: "text reply with cache reads and writes", fixture: "text_reply.json", model: "claude-sonnet-4-5",
			want: domain.Message{
				Content:    domain.BlockContent(domain.TextBlock("The research session finished its run 3 minutes ago.")),
				Usage:      &domain.Usage{Input: 214, Output: 15, CacheRead: 2048, CacheWrite: 1530, TotalTokens: 3807},
				StopReason: domain.StopReasonStop,
			},
		},
		{
			name: "tool use", fixture: "tool_use.json", model: "claude-sonnet-4-5",
			want: domain.Message{
				Content: domain.BlockContent(
					domain.TextBlock("I'll look at the recent sessions."),
					call("toolu_01A09q90qw90lq917835lq9", "sessions_list", "{\n        \"limit\": 5,\n        \"messageLimit\": 1\n      }"),
				),
				Usage:      &domain.Usage{Input: 1022, Output: 87, TotalTokens: 1109},
				StopReason: domain.StopReasonToolUse,
			},
		},
		{
			name: "several tool uses", fixture: "tool_uses_parallel.json", model: "claude-opus-4-1",
			want: domain.Message{
				Content: domain.BlockContent(
					call("toolu_01D7FLrfh4GYq7yT1ULFeyMV", "sessions_send", "{\n        \"sessionKey\": \"agent:research:main\",\n        \"message\": \"What did you find about tides?\",\n        \"timeoutSeconds\": 30\n      }"),
					call("toolu_01HcWX5bq6Jm2uVqK4pEn8Rz", "sessions_spawn", "{\n        \"task\": \"Check the outbox for failed deliveries\",\n        \"cleanup\": \"delete\"\n      }"),
					call("toolu_01Ls3QpNm8Vt2WxYz5Ab6Cd7", "agents_list", "{}"),
				),
				Usage:      &domain.Usage{Input: 3187, Output: 214, TotalTokens: 3401},
				StopReason: domain.StopReasonToolUse,
			},
		},
		{
			name: "thinking with signature and redacted thinking", fixture: "thinking.json", model: "claude-sonnet-4-5",
			want: domain.Message{
				Content: domain.BlockContent(
					domain.Block{Type: domain.BlockThinking,
						Thinking:          "The user asks whether a sub-agent can spawn another. maxSpawnDepth defaults to 1, so depth 2 is refused.",
						ThinkingSignature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds8Hs2bGW4yAfK0BpqOVmqOMNBdcjdyCCXnDEfTLR7mQ4uSUeRYNUnEx0CEEh5PTNGRoo="},
					domain.Block{Type: domain.BlockThinking, Data: "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB8URj2pLmN8vXdPJW4JqF+Ld"},
					domain.TextBlock("No: with the default maxSpawnDepth of 1 a sub-agent cannot spawn."),
				),
				Usage:      &domain.Usage{Input: 512, Output: 1893, TotalTokens: 2405},
				StopReason: domain.StopReasonStop,
			},
		},
		{
			name: "max tokens", fixture: "max_tokens.json", model: "claude-3-5-haiku-latest",
			want: domain.Message{
				Content:    domain.BlockContent(domain.TextBlock("The weekly report covers three areas: first")),
				Usage:      &domain.Usage{Input: 40, Output: 10, TotalTokens: 50},
				StopReason: domain.StopReasonLength,
			},
		},
		{
			name: "refusal", fixture: "refusal.json", model: "claude-sonnet-4-5",
			want: domain.Message{
				Content:      domain.BlockContent(),
				Usage:        &domain.Usage{Input: 33, TotalTokens: 33},
				StopReason:   domain.StopReasonError,
				ErrorMessage: "anthropic: the model declined to answer",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.New(t, reply{File: tt.fixture})
			p := newProvider(t, f, nil)
			req := hi
			req.Model = tt.model
			resp, err := p.Complete(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Role, want.API, want.Provider, want.Model, want.Timestamp = "assistant", "anthropic-messages", "anthropic", tt.model, testNow.UnixMilli()
			if d := cmp.Diff(want, resp.Message, cmpContent); d != "" {
				t.Errorf("message (-want +got):\n%s", d)
			}
			reqs := f.Requests()
			if len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
				t.Fatalf("requests = %+v, want one POST to /v1/messages", reqs)
			}
			if reqs[0].Header.Get("X-Api-Key") != "sk-ant-test" || reqs[0].Header.Get("Anthropic-Version") == "" {
				t.Errorf("headers: %v", reqs[0].Header)
			}
		})
	}
}

func TestRequestMapping(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, nil)
	isErr := true
	req := domain.ModelRequest{
		Model:  "claude-sonnet-4-5",
		System: "You are main.\nAgent-to-agent announce step:",
		Messages: []domain.Message{
			{Role: domain.RoleUser, Content: domain.TextContent("what runs?")},
			{Role: domain.RoleUser, Content: domain.BlockContent(
				domain.TextBlock("see this"),
				domain.TextBlock(""),
				domain.Block{Type: domain.BlockImage, Data: "aGVsbG8=", MimeType: "image/png"},
				domain.Block{Type: domain.BlockImage, Omitted: true, MimeType: "image/jpeg"},
			)},
			{Role: domain.RoleAssistant, Content: domain.BlockContent(
				domain.Block{Type: domain.BlockThinking, Thinking: "signed", ThinkingSignature: "sig1"},
				domain.Block{Type: domain.BlockThinking, Data: "redacted-data"},
				domain.Block{Type: domain.BlockThinking, Thinking: "unsigned, from another provider"},
				domain.TextBlock("Checking."),
				call("toolu_1", "sessions_list", `{"limit":5}`),
				call("toolu_2", "agents_list", ``),
				call("toolu_3", "sessions_history", `"{\"broken"`),
			)},
			{Role: domain.RoleToolResult, ToolCallID: "toolu_1", ToolName: "sessions_list", Content: domain.BlockContent(domain.TextBlock(`{"count":0}`))},
			{Role: domain.RoleToolResult, ToolCallID: "toolu_2", ToolName: "agents_list", IsError: &isErr, Content: domain.BlockContent(domain.TextBlock("tool not available: agents_list"))},
			{Role: domain.RoleToolResult, ToolCallID: "toolu_3", ToolName: "sessions_history", Content: domain.BlockContent(
				domain.TextBlock("chart"), domain.Block{Type: domain.BlockImage, Data: "iVBORw0=", MimeType: "image/png"})},
			{Role: domain.RoleAssistant, StopReason: domain.StopReasonAborted, Content: domain.BlockContent()},
			{Role: domain.RoleUser, Content: domain.TextContent("and now?")},
		},
		Tools: []domain.ToolSpec{
			{Name: "sessions_list", Description: "List sessions.", InputSchema: json.RawMessage(`{"type":"object","properties":{"limit":{"type":"integer"}},"required":["limit"],"additionalProperties":false}`)},
			{Name: "agents_list"},
		},
	}
	if _, err := p.Complete(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	reqs := f.Requests()
	want := map[string]any{
		"model":      "claude-sonnet-4-5",
		"max_tokens": float64(4096),
		"system":     []any{map[string]any{"type": "text", "text": "You are main.\nAgent-to-agent announce step:"}},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "what runs?"}}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "see this"},
				map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "aGVsbG8="}},
				map[string]any{"type": "text", "text": "[image omitted]"},
			}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "thinking", "thinking": "signed", "signature": "sig1"},
				map[string]any{"type": "redacted_thinking", "data": "redacted-data"},
				map[string]any{"type": "text", "text": "Checking."},
				map[string]any{"type": "tool_use", "id": "toolu_1", "name": "sessions_list", "input": map[string]any{"limit": float64(5)}},
				map[string]any{"type": "tool_use", "id": "toolu_2", "name": "agents_list", "input": map[string]any{}},
				map[string]any{"type": "tool_use", "id": "toolu_3", "name": "sessions_history", "input": map[string]any{"arguments": `{"broken`}},
			}},
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": []any{map[string]any{"type": "text", "text": `{"count":0}`}}},
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true, "content": []any{map[string]any{"type": "text", "text": "tool not available: agents_list"}}},
				map[string]any{"type": "tool_result", "tool_use_id": "toolu_3", "content": []any{
					map[string]any{"type": "text", "text": "chart"},
					map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0="}},
				}},
			}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "and now?"}}},
		},
		"tools": []any{
			map[string]any{"name": "sessions_list", "description": "List sessions.", "input_schema": map[string]any{
				"type": "object", "properties": map[string]any{"limit": map[string]any{"type": "integer"}}, "required": []any{"limit"}, "additionalProperties": false,
			}},
			map[string]any{"name": "agents_list", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}}},
		},
	}
	if d := cmp.Diff(want, reqs[0].Body); d != "" {
		t.Errorf("request body (-want +got):\n%s\nraw: %s", d, reqs[0].Raw)
	}
}

func TestThinkingRequest(t *testing.T) {
	tests := []struct {
		model        string
		level        string
		maxTokens    int
		wantBudget   float64 // 0 = no thinking param
		wantMaxToken float64
	}{
		{"claude-sonnet-4-5", "", 0, 0, 4096},
		{"claude-sonnet-4-5", "off", 0, 0, 4096},
		{"claude-sonnet-4-5", "minimal", 0, 1024, 4096},
		{"claude-sonnet-4-5", "low", 0, 2048, 4096},
		{"claude-opus-4-1", "medium", 0, 8192, 12288},
		{"claude-3-7-sonnet-latest", "high", 0, 16384, 20480},
		{"claude-haiku-4-5", "high", 32000, 16384, 32000},
		{"claude-sonnet-4-5", "low", 1000, 2048, 3048},
		{"claude-3-5-haiku-latest", "high", 0, 0, 4096}, // no extended thinking: dropped
	}
	for _, tt := range tests {
		t.Run(tt.model+"/"+tt.level, func(t *testing.T) {
			f := fakeapi.New(t, reply{File: "text_reply.json"})
			p := newProvider(t, f, nil)
			req := hi
			req.Model, req.Thinking, req.MaxTokens = tt.model, tt.level, tt.maxTokens
			if _, err := p.Complete(t.Context(), req); err != nil {
				t.Fatal(err)
			}
			body := f.Requests()[0].Body
			if got := body["max_tokens"]; got != tt.wantMaxToken {
				t.Errorf("max_tokens = %v, want %v", got, tt.wantMaxToken)
			}
			thinking, ok := body["thinking"].(map[string]any)
			if tt.wantBudget == 0 {
				if ok {
					t.Errorf("thinking = %v, want none", thinking)
				}
				return
			}
			if !ok || thinking["type"] != "enabled" || thinking["budget_tokens"] != tt.wantBudget {
				t.Errorf("thinking = %v, want enabled with budget %v", body["thinking"], tt.wantBudget)
			}
		})
	}
}

func TestThinkingLevels(t *testing.T) {
	p, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"off", "minimal", "low", "medium", "high"}
	for model, want := range map[string][]string{
		"claude-3-7-sonnet-20250219": all,
		"claude-sonnet-4-5":          all,
		"claude-sonnet-4-20250514":   all,
		"claude-opus-4-1":            all,
		"claude-haiku-4-5":           all,
		"claude-future-4-2":          all,
		"claude-3-5-sonnet-latest":   {"off"},
		"claude-3-5-haiku-20241022":  {"off"},
		"claude-3-opus-20240229":     {"off"},
	} {
		if d := cmp.Diff(want, p.ThinkingLevels(model)); d != "" {
			t.Errorf("%s: %s", model, d)
		}
	}
}

func TestNoAPIKeySendsNoCredentials(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-from-env-must-not-leak")
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, func(c *Config) { c.APIKey = "" })
	if _, err := p.Complete(t.Context(), hi); err != nil {
		t.Fatal(err)
	}
	h := f.Requests()[0].Header
	if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
		t.Errorf("credentials sent: %v", h)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Name: "proxy", BaseURL: "localhost:8080"}, `proxy: baseUrl "localhost:8080": want an http or https URL`},
		{Config{MaxRetries: -2}, "anthropic: maxRetries -2 is negative"},
		{Config{Timeout: -time.Second}, "anthropic: timeout -1s is negative"},
	}
	for _, tt := range tests {
		if _, err := New(tt.cfg); err == nil || err.Error() != tt.want {
			t.Errorf("err = %v, want %q", err, tt.want)
		}
	}
}

func TestInvalidRequest(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, nil)
	tests := []struct {
		req  domain.ModelRequest
		want string
	}{
		{domain.ModelRequest{}, "anthropic: model id is empty"},
		{domain.ModelRequest{Model: "m", Tools: []domain.ToolSpec{{Name: "t", InputSchema: json.RawMessage(`"x"`)}}}, `anthropic: tool "t": input schema is not a JSON object`},
		{domain.ModelRequest{Model: "m", Messages: []domain.Message{
			{Role: domain.RoleAssistant, Content: domain.BlockContent(call("", "t", "{}"))},
			{Role: domain.RoleToolResult}}}, "anthropic: messages[1]: toolResult without toolCallId"},
		{domain.ModelRequest{Model: "m", Messages: []domain.Message{{Role: "developer"}}}, `anthropic: messages[0]: unknown role "developer"`},
	}
	for _, tt := range tests {
		_, err := p.Complete(t.Context(), tt.req)
		if err == nil || err.Error() != tt.want || domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("err = %v, want invalid %q", err, tt.want)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("%d requests sent for invalid input", n)
	}
}

func TestToolPairsRepaired(t *testing.T) {
	f := fakeapi.New(t, reply{File: "text_reply.json"})
	p := newProvider(t, f, nil)
	_, err := p.Complete(t.Context(), domain.ModelRequest{Model: "claude-sonnet-4-5", Messages: []domain.Message{
		{Role: domain.RoleToolResult, ToolCallID: "toolu_gone", Content: domain.BlockContent(domain.TextBlock("stray"))},
		{Role: domain.RoleUser, Content: domain.TextContent("go")},
		{Role: domain.RoleAssistant, Content: domain.BlockContent(call("toolu_9", "sessions_list", `{}`))},
		{Role: domain.RoleUser, Content: domain.TextContent("are you there?")},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "go"}}},
		map[string]any{"role": "assistant", "content": []any{
			map[string]any{"type": "tool_use", "id": "toolu_9", "name": "sessions_list", "input": map[string]any{}},
		}},
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": "toolu_9", "is_error": true,
				"content": []any{map[string]any{"type": "text", "text": "tool call interrupted: no result was recorded"}}},
		}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "are you there?"}}},
	}
	if d := cmp.Diff(want, f.Requests()[0].Body["messages"]); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}
