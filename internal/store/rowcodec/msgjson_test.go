package rowcodec

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestMessageJSONMatchesMarshal holds appendMessageJSON to json.Marshal's
// output, byte for byte once json.Marshal's HTML escapes are undone.
func TestMessageJSONMatchesMarshal(t *testing.T) {
	full := domain.Message{
		Role:      domain.RoleAssistant,
		Timestamp: -1_750_000_000_123,
		Content: domain.BlockContent(
			domain.Block{Type: domain.BlockThinking, Thinking: "hmm", ThinkingSignature: "sig"},
			domain.Block{Type: domain.BlockText, Text: "a \"quote\" \\ \n\t\r\b\f \x01 \x7f <b>&amp;</b> \u2028\u2029 é 😀 \xff\xfe", TextSignature: "ts"},
			domain.Block{Type: domain.BlockToolCall, ID: "call_1", Name: "sessions_list", Arguments: json.RawMessage(" {\"a\" : [1, 2.50, null, true], \"s\":\"<x>\"} ")},
			domain.Block{Type: domain.BlockImage, Data: "AAAA", MimeType: "image/png", Omitted: true, Bytes: 1234},
		),
		Provenance: &domain.Provenance{Kind: domain.ProvenanceInterSession, OriginSessionID: "o", SourceSessionKey: "agent:a:main",
			SourceChannel: "c", SourceTool: "sessions_send", SourceRunID: "r", Step: "reply"},
		API: "responses", Provider: "openai", Model: "gpt",
		Usage: &domain.Usage{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, TotalTokens: 1 << 60,
			Cost: &domain.Cost{Input: 0.1 + 0.2, Output: 1e-7, CacheRead: 1e21, CacheWrite: -0, Total: 123456789.125}},
		StopReason: "toolUse", ErrorMessage: "e", ToolCallID: "call_1", ToolName: "t", IsError: domain.Bool(false),
		Details: json.RawMessage(`{"count": 0, "x":[ ]}`), Kind: "announce",
	}
	tests := []struct {
		name string
		m    domain.Message
	}{
		{"Full", full},
		{"Plain", domain.Message{Role: domain.RoleUser, Content: domain.TextContent("hi <there>"), Timestamp: 1}},
		{"PlainEmpty", domain.Message{Role: domain.RoleUser, Content: domain.TextContent("")}},
		{"NilContent", domain.Message{Role: domain.RoleUser}},
		{"EmptyBlocks", domain.Message{Role: domain.RoleUser, Content: domain.BlockContent()}},
		{"ToolResultError", domain.Message{Role: domain.RoleToolResult, IsError: domain.Bool(true), Details: json.RawMessage(`null`),
			Content: domain.BlockContent(domain.TextBlock("x"))}},
		{"UsageWithoutCost", domain.Message{Role: domain.RoleAssistant, Usage: &domain.Usage{}}},
	}
	unescape := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(&tt.m)
			if err != nil {
				t.Fatal(err)
			}
			got, err := appendMessageJSON([]byte("prefix"), &tt.m)
			if err != nil {
				t.Fatalf("appendMessageJSON: %v", err)
			}
			if g, w := strings.TrimPrefix(string(got), "prefix"), unescape.Replace(string(want)); g != w {
				t.Errorf("appendMessageJSON\n got %s\nwant %s", g, w)
			}
		})
	}
}

func TestMessageJSONRejects(t *testing.T) {
	tests := []struct {
		name string
		m    domain.Message
		want string
	}{
		{"BadDetails", domain.Message{Role: "user", Details: json.RawMessage(`{"x":`)}, "details"},
		{"BadArguments", domain.Message{Role: "assistant", Content: domain.BlockContent(
			domain.Block{Type: domain.BlockToolCall, Arguments: json.RawMessage(`nope`)})}, "block 0 arguments"},
		{"NaNCost", domain.Message{Role: "assistant", Usage: &domain.Usage{Cost: &domain.Cost{Total: math.NaN()}}}, "usage.cost"},
		{"InfCost", domain.Message{Role: "assistant", Usage: &domain.Usage{Cost: &domain.Cost{Input: math.Inf(1)}}}, "unsupported value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := appendMessageJSON(nil, &tt.m); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
