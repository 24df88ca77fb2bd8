package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// msgJSON renders messages for exact comparisons (Content has unexported
// fields, so JSON is the faithful view).
func msgJSON(t *testing.T, msgs []domain.Message) string {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHistorySanitizesMessages(t *testing.T) {
	key := "sk-" + strings.Repeat("k", 30)
	long5000 := strings.Repeat("a", 5000)
	boundary := strings.Repeat("b", 3999) + "😀" + "tail" // emoji spans units 4000-4001
	tests := []struct {
		name                      string
		in                        domain.Message
		want                      string // JSON of the sanitized message
		wantTruncated, wantRedact bool
	}{
		{
			name: "plain short text untouched",
			in:   domain.Message{Role: "user", Content: domain.TextContent("hi"), Timestamp: 1},
			want: `{"role":"user","content":"hi","timestamp":1}`,
		},
		{
			name: "usage and details are dropped without counting as truncated",
			in: domain.Message{Role: "assistant", Content: domain.TextContent("ok"), Timestamp: 2,
				Usage: &domain.Usage{Input: 5}, Details: json.RawMessage(`{"x":1}`)},
			want: `{"role":"assistant","content":"ok","timestamp":2}`,
		},
		{
			name:          "5000-char text truncated to 4000",
			in:            domain.Message{Role: "user", Content: domain.TextContent(long5000), Timestamp: 3},
			want:          mustJSON(domain.Message{Role: "user", Content: domain.TextContent(long5000[:4000] + "\n…(truncated)…"), Timestamp: 3}),
			wantTruncated: true,
		},
		{
			name: "exactly 4000 units is not truncated",
			in:   domain.Message{Role: "user", Content: domain.TextContent(strings.Repeat("c", 3998) + "😀")},
			want: mustJSON(domain.Message{Role: "user", Content: domain.TextContent(strings.Repeat("c", 3998) + "😀")}),
		},
		{
			name:          "emoji at the boundary is not split",
			in:            domain.Message{Role: "user", Content: domain.TextContent(boundary)},
			want:          mustJSON(domain.Message{Role: "user", Content: domain.TextContent(strings.Repeat("b", 3999) + "\n…(truncated)…")}),
			wantTruncated: true,
		},
		{
			name:       "credential in plain content",
			in:         domain.Message{Role: "user", Content: domain.TextContent("use " + key)},
			want:       `{"role":"user","content":"use sk-kkk…kkkk","timestamp":0}`,
			wantRedact: true,
		},
		{
			name: "blocks: text, thinking, image, toolCall",
			in: domain.Message{Role: "assistant", Timestamp: 4, Content: domain.BlockContent(
				domain.Block{Type: "thinking", Thinking: "GH ghp_" + strings.Repeat("g", 30), ThinkingSignature: "sig"},
				domain.Block{Type: "text", Text: "TOKEN=" + strings.Repeat("t", 20)},
				domain.Block{Type: "image", Data: "aGVsbG8=", MimeType: "image/png"},
				domain.Block{Type: "toolCall", ID: "c1", Name: "exec", Arguments: json.RawMessage(`{"cmd":"curl --token ` + key + `","n":1}`)},
			)},
			want: `{"role":"assistant","content":[` +
				`{"type":"thinking","thinking":"GH ghp_gg…gggg"},` +
				`{"type":"text","text":"TOKEN=tttttt…tttt"},` +
				`{"type":"image","mimeType":"image/png","omitted":true,"bytes":8},` +
				`{"type":"toolCall","id":"c1","name":"exec","arguments":{"cmd":"curl --token sk-kkk…kkkk","n":1}}` +
				`],"timestamp":4}`,
			wantTruncated: true,
			wantRedact:    true,
		},
		{
			name: "toolCall arguments without secrets keep their bytes",
			in: domain.Message{Role: "assistant", Content: domain.BlockContent(
				domain.Block{Type: "toolCall", ID: "c1", Name: "x", Arguments: json.RawMessage(`{"b": 1, "a": "x"}`)})},
			want: `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"x","arguments":{"b":1,"a":"x"}}],"timestamp":0}`,
		},
		{
			name:       "errorMessage redacted",
			in:         domain.Message{Role: "assistant", Content: domain.BlockContent(), ErrorMessage: "401: Incorrect API key provided: " + key},
			want:       `{"role":"assistant","content":[],"timestamp":0,"errorMessage":"401: Incorrect API key provided: sk-kkk…kkkk"}`,
			wantRedact: true,
		},
		{
			name: "long thinking truncated",
			in: domain.Message{Role: "assistant", Content: domain.BlockContent(
				domain.Block{Type: "thinking", Thinking: long5000})},
			want: mustJSON(domain.Message{Role: "assistant", Content: domain.BlockContent(
				domain.Block{Type: "thinking", Thinking: long5000[:4000] + "\n…(truncated)…"})}),
			wantTruncated: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := msgJSON(t, []domain.Message{tt.in})
			res := History([]domain.Message{tt.in}, HistoryOptions{})
			if len(res.Messages) != 1 {
				t.Fatalf("got %d messages, want 1", len(res.Messages))
			}
			if got := msgJSON(t, res.Messages); got != "["+tt.want+"]" {
				t.Errorf("sanitized\n got %s\nwant [%s]", got, tt.want)
			}
			if res.ContentTruncated != tt.wantTruncated || res.Truncated != tt.wantTruncated {
				t.Errorf("contentTruncated=%v truncated=%v, want %v", res.ContentTruncated, res.Truncated, tt.wantTruncated)
			}
			if res.ContentRedacted != tt.wantRedact {
				t.Errorf("contentRedacted = %v, want %v", res.ContentRedacted, tt.wantRedact)
			}
			if res.DroppedMessages {
				t.Error("droppedMessages = true, want false")
			}
			if after := msgJSON(t, []domain.Message{tt.in}); after != before {
				t.Errorf("input mutated:\n before %s\n after  %s", before, after)
			}
			if want := len(msgJSON(t, res.Messages)); res.Bytes != want {
				t.Errorf("bytes = %d, want %d", res.Bytes, want)
			}
		})
	}
}

func mustJSON(m domain.Message) string {
	b, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func TestHistoryDropsOldest(t *testing.T) {
	// 50 messages of ~2 KiB each: about 100 KiB in all.
	var msgs []domain.Message
	for i := range 50 {
		msgs = append(msgs, domain.Message{Role: "user", Content: domain.TextContent(fmt.Sprintf("%02d:", i) + strings.Repeat("x", 2000)), Timestamp: int64(i)})
	}
	if n := len(msgJSON(t, msgs)); n < 100*1000 {
		t.Fatalf("fixture is %d bytes, want about 100 KiB", n)
	}
	res := History(msgs, HistoryOptions{})
	if !res.DroppedMessages || !res.Truncated || res.ContentTruncated {
		t.Errorf("flags dropped=%v truncated=%v contentTruncated=%v, want true true false", res.DroppedMessages, res.Truncated, res.ContentTruncated)
	}
	got := msgJSON(t, res.Messages)
	if res.Bytes != len(got) || res.Bytes > DefaultHistoryMaxBytes {
		t.Errorf("bytes = %d (JSON %d), want ≤ %d", res.Bytes, len(got), DefaultHistoryMaxBytes)
	}
	// Each message is 2030 bytes of JSON; 40 fit in 81920 with brackets and commas, 41 do not.
	if len(res.Messages) != 40 {
		t.Errorf("kept %d messages, want 40", len(res.Messages))
	}
	if first := res.Messages[0].Timestamp; first != 10 {
		t.Errorf("first kept timestamp = %d, want 10 (the oldest dropped)", first)
	}
	if last := res.Messages[len(res.Messages)-1].Timestamp; last != 49 {
		t.Errorf("last kept timestamp = %d, want 49", last)
	}
}

func TestHistoryPlaceholderForOversizedMessage(t *testing.T) {
	// Text fields are capped at 4000 units each, so a 200 KiB message needs
	// many blocks to survive sanitizing at that size.
	var blocks []domain.Block
	for range 52 {
		blocks = append(blocks, domain.TextBlock(strings.Repeat("y", 3900)))
	}
	big := domain.Message{Role: "assistant", Content: domain.BlockContent(blocks...), Timestamp: 77}
	if n := len(msgJSON(t, []domain.Message{big})); n < 200*1000 {
		t.Fatalf("fixture is %d bytes, want about 200 KiB", n)
	}
	small := domain.Message{Role: "user", Content: domain.TextContent("older"), Timestamp: 1}
	res := History([]domain.Message{small, big}, HistoryOptions{})
	want := `[{"role":"assistant","content":"[sessions_history omitted: message too large]","timestamp":77}]`
	if got := msgJSON(t, res.Messages); got != want {
		t.Errorf("messages = %s, want %s", got, want)
	}
	if !res.DroppedMessages || !res.Truncated || res.Bytes != len(want) {
		t.Errorf("dropped=%v truncated=%v bytes=%d, want true true %d", res.DroppedMessages, res.Truncated, res.Bytes, len(want))
	}
}

func TestHistoryKeepsLastWhenItAloneFits(t *testing.T) {
	msgs := []domain.Message{
		{Role: "user", Content: domain.TextContent(strings.Repeat("a", 300))},
		{Role: "user", Content: domain.TextContent("last")},
	}
	res := History(msgs, HistoryOptions{MaxBytes: 100})
	want := `[{"role":"user","content":"last","timestamp":0}]`
	if got := msgJSON(t, res.Messages); got != want {
		t.Errorf("messages = %s, want %s", got, want)
	}
	if !res.DroppedMessages || res.Bytes != len(want) {
		t.Errorf("dropped=%v bytes=%d", res.DroppedMessages, res.Bytes)
	}
}

func TestHistoryEmpty(t *testing.T) {
	res := History(nil, HistoryOptions{})
	b, _ := json.Marshal(res)
	want := `{"messages":[],"truncated":false,"droppedMessages":false,"contentTruncated":false,"contentRedacted":false,"bytes":2}`
	if string(b) != want {
		t.Errorf("History(nil) = %s, want %s", b, want)
	}
}

func TestHistoryDoesNotMutateSharedBlocks(t *testing.T) {
	blocks := []domain.Block{
		{Type: "text", Text: "PASSWORD=" + strings.Repeat("p", 30)},
		{Type: "image", Data: "aGVsbG8="},
	}
	in := []domain.Message{{Role: "user", Content: domain.BlockContent(blocks...)}}
	History(in, HistoryOptions{})
	got := in[0].Content.Blocks()
	want := []domain.Block{
		{Type: "text", Text: "PASSWORD=" + strings.Repeat("p", 30)},
		{Type: "image", Data: "aGVsbG8="},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("input blocks changed (-want +got):\n%s", diff)
	}
}

func TestSanitizeTextLongInput(t *testing.T) {
	r := New()
	key := "sk-" + strings.Repeat("z", 40)
	tests := []struct {
		name, in, wantPrefix string
	}{
		{
			// A secret straddling the 4000-unit cut in a 200 KB text.
			name:       "secret across the cut",
			in:         strings.Repeat("a", 3990) + " " + key + strings.Repeat("b", 200_000),
			wantPrefix: strings.Repeat("a", 3990) + " sk-zzz…",
		},
		{
			// A huge private key early in the text collapses when masked,
			// so the kept prefix reaches text past the redaction window.
			name:       "masking shrinks the window",
			in:         "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("Q", 100_000) + "\n-----END PRIVATE KEY-----\n" + key + " " + strings.Repeat("c", 10_000),
			wantPrefix: "-----BEGIN PRIVATE KEY-----\n…redacted…\n-----END PRIVATE KEY-----\nsk-zzz…zzzz ccc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flags
			got := r.sanitizeText(tt.in, DefaultTextMaxChars, &f)
			if !strings.HasPrefix(got, tt.wantPrefix) {
				t.Errorf("got prefix %q, want %q", got[:min(len(got), len(tt.wantPrefix)+10)], tt.wantPrefix)
			}
			if strings.Contains(got, key) || strings.Contains(got, "QQQQ") {
				t.Error("secret leaked")
			}
			if !strings.HasSuffix(got, TruncationMarker) || !f.truncated || !f.redacted {
				t.Errorf("truncated=%v redacted=%v suffix ok=%v", f.truncated, f.redacted, strings.HasSuffix(got, TruncationMarker))
			}
			if kept := strings.TrimSuffix(got, TruncationMarker); len([]rune(kept)) > DefaultTextMaxChars {
				t.Errorf("kept %d runes, want ≤ %d", len([]rune(kept)), DefaultTextMaxChars)
			}
		})
	}
}

func TestSanitizeArguments(t *testing.T) {
	key := "ghp_" + strings.Repeat("q", 30)
	tests := []struct {
		name, in, want string
		redacted       bool
	}{
		{"nested arrays and objects", `{"a":[{"b":"` + key + `"},2.50,null,true]}`, `{"a":[{"b":"ghp_qq…qqqq"},2.50,null,true]}`, true},
		{"no secrets keeps raw bytes", `{ "a" : [1, "x"] }`, `{ "a" : [1, "x"] }`, false},
		{"invalid JSON becomes a redacted string", `{"cmd":"` + key, `"{\"cmd\":\"ghp_qq…qqqq"`, true},
		{"trailing garbage becomes a string", `{} {}`, `"{} {}"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f flags
			got := New().sanitizeArguments(json.RawMessage(tt.in), &f)
			if string(got) != tt.want || f.redacted != tt.redacted {
				t.Errorf("got %s (redacted %v), want %s (%v)", got, f.redacted, tt.want, tt.redacted)
			}
			if !json.Valid(got) {
				t.Errorf("result is not valid JSON: %s", got)
			}
		})
	}
}

func TestClipBytesRuneBoundary(t *testing.T) {
	if got := clipBytes("aé", 2); got != "a" {
		t.Errorf("clipBytes = %q, want %q", got, "a")
	}
	if got := clipBytes("abc", 5); got != "abc" {
		t.Errorf("clipBytes = %q, want abc", got)
	}
}

func TestSearchTextMasksAndCuts(t *testing.T) {
	long := strings.Repeat("a", DefaultTextMaxChars+50)
	tests := []struct {
		name string
		msg  domain.Message
		want string
	}{
		{"plain", domain.Message{Role: "user", Content: domain.TextContent("hello world")}, "hello world"},
		{"masked", domain.Message{Role: "user", Content: domain.TextContent("key OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwxyz")},
			"key OPENAI_API_KEY=sk-abc…wxyz"},
		{"blocks skip thinking and calls", domain.Message{Role: "assistant", Content: domain.BlockContent(
			domain.Block{Type: domain.BlockThinking, Thinking: "secret plan"},
			domain.TextBlock("visible"),
			domain.Block{Type: domain.BlockToolCall, Name: "x", Arguments: []byte(`{"q":"args"}`)},
		), ErrorMessage: "boom"}, "visible\nboom"},
		{"cut", domain.Message{Role: "user", Content: domain.TextContent(long)}, long[:DefaultTextMaxChars]},
		{"empty", domain.Message{Role: "assistant", Content: domain.BlockContent()}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SearchText(tc.msg); got != tc.want {
				t.Errorf("SearchText = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCutTexts(t *testing.T) {
	long := strings.Repeat("x", 12)
	cases := []struct {
		name string
		in   domain.Message
		max  int
		want domain.Message
	}{
		{"short string content is kept", domain.Message{Role: "user", Content: domain.TextContent("short")}, 10,
			domain.Message{Role: "user", Content: domain.TextContent("short")}},
		{"long string content is cut", domain.Message{Role: "user", Content: domain.TextContent(long)}, 10,
			domain.Message{Role: "user", Content: domain.TextContent(long[:10] + TruncationMarker)}},
		{"text and thinking blocks are cut, credentials are not masked",
			domain.Message{Role: "assistant", Content: domain.BlockContent(domain.TextBlock("sk-abcdefghijklmnopqrstuvwxyz"),
				domain.Block{Type: "thinking", Thinking: long}), ErrorMessage: long}, 10,
			domain.Message{Role: "assistant", Content: domain.BlockContent(domain.TextBlock("sk-abcdefg"+TruncationMarker),
				domain.Block{Type: "thinking", Thinking: long[:10] + TruncationMarker}), ErrorMessage: long[:10] + TruncationMarker}},
		{"a surrogate pair is never split", domain.Message{Role: "user", Content: domain.TextContent("ab😀cd")}, 3,
			domain.Message{Role: "user", Content: domain.TextContent("ab" + TruncationMarker)}},
		{"0 cuts nothing", domain.Message{Role: "user", Content: domain.TextContent(long)}, 0,
			domain.Message{Role: "user", Content: domain.TextContent(long)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := []domain.Message{tc.in}
			before, _ := json.Marshal(in)
			got := CutTexts(in, tc.max)
			a, _ := json.Marshal(got[0])
			b, _ := json.Marshal(tc.want)
			if string(a) != string(b) {
				t.Errorf("CutTexts = %s\nwant        %s", a, b)
			}
			if after, _ := json.Marshal(in); string(after) != string(before) {
				t.Errorf("CutTexts modified its input: %s", after)
			}
		})
	}
}
