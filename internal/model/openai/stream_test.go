package openai

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/model/internal/fakeapi"
)

// chunk is one Chat Completions stream chunk.
func chunk(choices string) string {
	return `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[` + choices + `]}`
}

const usageChunk = `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],` +
	`"usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16}}`

// sseProvider is a provider talking to a streaming fake.
func sseProvider(t *testing.T, f *fakeapi.SSE) *Provider {
	t.Helper()
	p, err := New(Config{BaseURL: f.URL + "/v1", APIKey: "sk-test", MaxRetries: 0, HTTPClient: f.Client(),
		Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// collector records deltas (safe for the provider's goroutine).
type collector struct {
	mu     sync.Mutex
	deltas []domain.ModelDelta
	first  chan struct{}
	once   sync.Once
}

func newCollector() *collector { return &collector{first: make(chan struct{})} }

func (c *collector) add(d domain.ModelDelta) {
	c.mu.Lock()
	c.deltas = append(c.deltas, d)
	c.mu.Unlock()
	c.once.Do(func() { close(c.first) })
}

func (c *collector) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for _, d := range c.deltas {
		b.WriteString(d.Text)
	}
	return b.String()
}

func streamReq(onDelta domain.DeltaFunc) domain.ModelRequest {
	return domain.ModelRequest{Model: "m", Messages: []domain.Message{{Role: domain.RoleUser, Content: domain.TextContent("hi")}}, OnDelta: onDelta}
}

func TestStreamText(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{
		chunk(`{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}`),
		chunk(`{"index":0,"delta":{"content":"lo!"},"finish_reason":null}`),
		chunk(`{"index":0,"delta":{},"finish_reason":"stop"}`),
		usageChunk, "[DONE]",
	}})
	c := newCollector()
	resp, err := sseProvider(t, f).Complete(context.Background(), streamReq(c.add))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.text(); got != "Hello!" || len(c.deltas) != 2 {
		t.Errorf("deltas %+v, want Hel + lo!", c.deltas)
	}
	m := resp.Message
	if m.Content.Text() != "Hello!" || m.StopReason != domain.StopReasonStop {
		t.Errorf("message %q stop %q", m.Content.Text(), m.StopReason)
	}
	if m.Usage == nil || m.Usage.Input != 12 || m.Usage.Output != 4 || m.Usage.TotalTokens != 16 {
		t.Errorf("usage %+v, want 12/4/16 from the include_usage chunk", m.Usage)
	}
	body := f.Requests()[0].Body
	if body["stream"] != true {
		t.Errorf("request stream = %v, want true", body["stream"])
	}
	if so, _ := body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("stream_options = %v, want include_usage true", body["stream_options"])
	}
}

func TestStreamToolCalls(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{
		chunk(`{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"sessions_list","arguments":""}}]},"finish_reason":null}`),
		chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"lim"}}]},"finish_reason":null}`),
		chunk(`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"it\":5}"}}]},"finish_reason":null}`),
		chunk(`{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"agents_list","arguments":"{}"}}]},"finish_reason":null}`),
		chunk(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`),
		usageChunk, "[DONE]",
	}})
	c := newCollector()
	resp, err := sseProvider(t, f).Complete(context.Background(), streamReq(c.add))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.Content.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "call_a" || calls[0].Name != "sessions_list" || calls[1].Name != "agents_list" {
		t.Fatalf("calls %+v", calls)
	}
	var args map[string]any
	if err := json.Unmarshal(calls[0].Arguments, &args); err != nil || args["limit"] != float64(5) {
		t.Errorf("arguments %s (%v), want {\"limit\":5} joined from pieces", calls[0].Arguments, err)
	}
	if resp.Message.StopReason != domain.StopReasonToolUse {
		t.Errorf("stop %q, want toolUse", resp.Message.StopReason)
	}
	var first *domain.ToolCallDelta
	var joined strings.Builder
	for _, d := range c.deltas {
		if d.ToolCall == nil {
			t.Fatalf("a non tool-call delta %+v", d)
		}
		if d.ToolCall.Index == 0 {
			if first == nil {
				first = d.ToolCall
			}
			joined.WriteString(d.ToolCall.Arguments)
		}
	}
	if first == nil || first.ID != "call_a" || first.Name != "sessions_list" || joined.String() != `{"limit":5}` {
		t.Errorf("call 0 pieces: first %+v, arguments %q", first, joined.String())
	}
	if last := c.deltas[len(c.deltas)-1].ToolCall; last.Index != 1 || last.Name != "agents_list" {
		t.Errorf("last piece %+v, want call 1 agents_list", last)
	}
}

func TestStreamErrors(t *testing.T) {
	hello := chunk(`{"index":0,"delta":{"content":"partial"},"finish_reason":null}`)
	tests := []struct {
		name  string
		reply fakeapi.SSEReply
		code  string
		text  string
	}{
		{"error event mid-stream", fakeapi.SSEReply{Events: []string{hello, `{"error":{"message":"overloaded, try later","type":"server_error"}}`}},
			domain.CodeUnavailable, "overloaded, try later"},
		{"connection cut mid-stream", fakeapi.SSEReply{Events: []string{hello}, Cut: true}, domain.CodeUnavailable, "openai"},
		{"ends without a finish reason", fakeapi.SSEReply{Events: []string{hello, "[DONE]"}}, domain.CodeUnavailable, "before the answer was complete"},
		{"refused before streaming", fakeapi.SSEReply{Status: 400, Body: `{"error":{"message":"bad model"}}`}, domain.CodeInvalid, "400 Bad Request: bad model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := fakeapi.NewSSE(t, tt.reply)
			_, err := sseProvider(t, f).Complete(context.Background(), streamReq(func(domain.ModelDelta) {}))
			var de *domain.Error
			if !errors.As(err, &de) || de.Code != tt.code || !strings.Contains(de.Message, tt.text) {
				t.Fatalf("err %v, want code %s containing %q", err, tt.code, tt.text)
			}
		})
	}
}

// TestStreamCancel: deltas arrive while the server still streams, and a
// cancel ends the call at once with the caller's error.
func TestStreamCancel(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{
		chunk(`{"index":0,"delta":{"content":"thinking about it"},"finish_reason":null}`)}, Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := newCollector()
	done := make(chan error, 1)
	go func() {
		_, err := sseProvider(t, f).Complete(ctx, streamReq(c.add))
		done <- err
	}()
	select {
	case <-c.first:
	case <-time.After(10 * time.Second):
		t.Fatal("no delta while the stream is open")
	}
	if c.text() != "thinking about it" {
		t.Errorf("delta %q", c.text())
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not end after cancel")
	}
}

// TestStreamUsageEndsAnswer: a server that leaves finish_reason out but
// sends the usage chunk (include_usage) gave a complete answer.
func TestStreamUsageEndsAnswer(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{
		chunk(`{"index":0,"delta":{"content":"done"}}`), usageChunk, "[DONE]"}})
	resp, err := sseProvider(t, f).Complete(context.Background(), streamReq(func(domain.ModelDelta) {}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content.Text() != "done" || resp.Message.StopReason != domain.StopReasonStop {
		t.Errorf("message %q stop %q", resp.Message.Content.Text(), resp.Message.StopReason)
	}
}
