package anthropic

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

// ev is one named Messages stream event.
func ev(name, data string) string { return "event: " + name + "\ndata: " + data }

var (
	msgStart = ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5",`+
		`"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}`)
	msgStop = ev("message_stop", `{"type":"message_stop"}`)
)

func msgDelta(stop string, out int) string {
	return ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":`+itoa(out)+`}}`)
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func sseProvider(t *testing.T, f *fakeapi.SSE) *Provider {
	t.Helper()
	p, err := New(Config{BaseURL: f.URL, APIKey: "sk-ant-test", MaxRetries: 0, HTTPClient: f.Client(), Now: func() time.Time { return testNow }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

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
	r := hi
	r.OnDelta = onDelta
	return r
}

func TestStreamText(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{
		msgStart,
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("ping", `{"type":"ping"}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"lo!"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		msgDelta("end_turn", 7), msgStop,
	}})
	c := newCollector()
	resp, err := sseProvider(t, f).Complete(context.Background(), streamReq(c.add))
	if err != nil {
		t.Fatal(err)
	}
	if c.text() != "Hello!" || len(c.deltas) != 2 {
		t.Errorf("deltas %+v", c.deltas)
	}
	m := resp.Message
	if m.Content.Text() != "Hello!" || m.StopReason != domain.StopReasonStop {
		t.Errorf("message %q stop %q", m.Content.Text(), m.StopReason)
	}
	if m.Usage == nil || m.Usage.Input != 25 || m.Usage.Output != 7 {
		t.Errorf("usage %+v, want input 25 (message_start) output 7 (message_delta)", m.Usage)
	}
	if f.Requests()[0].Body["stream"] != true {
		t.Errorf("request stream = %v, want true", f.Requests()[0].Body["stream"])
	}
}

func TestStreamToolUse(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{
		msgStart,
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Looking."}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"sessions_list","input":{}}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"lim"}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"it\": 5}"}}`),
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`),
		msgDelta("tool_use", 30), msgStop,
	}})
	c := newCollector()
	resp, err := sseProvider(t, f).Complete(context.Background(), streamReq(c.add))
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Message.Content.ToolCalls()
	if len(calls) != 1 || calls[0].ID != "toolu_1" || calls[0].Name != "sessions_list" {
		t.Fatalf("calls %+v", calls)
	}
	var args map[string]any
	if err := json.Unmarshal(calls[0].Arguments, &args); err != nil || args["limit"] != float64(5) {
		t.Errorf("arguments %s: %v", calls[0].Arguments, err)
	}
	if resp.Message.StopReason != domain.StopReasonToolUse {
		t.Errorf("stop %q", resp.Message.StopReason)
	}
	var pieces []domain.ToolCallDelta
	for _, d := range c.deltas {
		if d.ToolCall != nil {
			pieces = append(pieces, *d.ToolCall)
		}
	}
	if len(pieces) != 3 || pieces[0].ID != "toolu_1" || pieces[0].Name != "sessions_list" || pieces[1].Arguments+pieces[2].Arguments != `{"limit": 5}` {
		t.Errorf("tool pieces %+v", pieces)
	}
	if c.text() != "Looking." {
		t.Errorf("text deltas %q", c.text())
	}
}

func TestStreamErrors(t *testing.T) {
	text := ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	piece := ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"part"}}`)
	tests := []struct {
		name  string
		reply fakeapi.SSEReply
		code  string
		text  string
	}{
		{"error event mid-stream", fakeapi.SSEReply{Events: []string{msgStart, text, piece,
			ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)}}, domain.CodeUnavailable, "Overloaded"},
		{"connection cut mid-stream", fakeapi.SSEReply{Events: []string{msgStart, text, piece}, Cut: true}, domain.CodeUnavailable, "anthropic"},
		{"ends without message_stop", fakeapi.SSEReply{Events: []string{msgStart, text, piece}}, domain.CodeUnavailable, "before the answer was complete"},
		{"refused before streaming", fakeapi.SSEReply{Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`},
			domain.CodeInvalid, "401 Unauthorized: invalid x-api-key"},
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

func TestStreamCancel(t *testing.T) {
	f := fakeapi.NewSSE(t, fakeapi.SSEReply{Events: []string{msgStart,
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"so far"}}`)}, Hold: true})
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
	if c.text() != "so far" {
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
