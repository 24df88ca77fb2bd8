package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// BenchmarkReadFile parses a 100-message transcript of typical shapes and
// reports ns per message.
func BenchmarkReadFile(b *testing.B) {
	m := New(b.TempDir(), nil)
	var msgs []domain.Message
	for i := range 50 {
		msgs = append(msgs,
			domain.Message{Role: domain.RoleUser, Content: domain.TextContent(strings.Repeat("word ", 20+i%30)), Timestamp: int64(1775037600000 + i)},
			domain.Message{Role: domain.RoleAssistant, Content: domain.BlockContent(domain.TextBlock(strings.Repeat("reply ", 40))),
				API: "openai-responses", Provider: "openai", Model: "gpt-4.1-mini", StopReason: domain.StopReasonStop,
				Usage: &domain.Usage{Input: 1200, Output: 80, TotalTokens: 1280, Cost: &domain.Cost{Total: 0.001}}, Timestamp: int64(1775037600000 + i)})
	}
	if err := m.Append("main", "s", msgs); err != nil {
		b.Fatal(err)
	}
	path := m.Path("main", "s")
	for b.Loop() {
		_, entries, _, err := ReadFile(path)
		if err != nil || len(entries) != len(msgs) {
			b.Fatal(err, len(entries))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(msgs)), "ns/msg")
}

// BenchmarkAppend appends batches of 4 messages to one file.
func BenchmarkAppend(b *testing.B) {
	m := New(b.TempDir(), nil)
	batch := make([]domain.Message, 4)
	for i := range batch {
		batch[i] = domain.Message{ID: fmt.Sprintf("%08x", i), Role: domain.RoleUser, Content: domain.TextContent("hello there"), Timestamp: 1}
	}
	for b.Loop() {
		if err := m.Append("main", "s", batch); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeMessageProvenance decodes a stored chat user message with
// its provenance, as a turn reading its context from the store does.
func BenchmarkDecodeMessageProvenance(b *testing.B) {
	body := []byte(`{"role":"user","content":"please look into the failing deploy","timestamp":1775037600000,"provenance":{"kind":"external_user","sourceChannel":"webchat"}}`)
	for b.Loop() {
		var m domain.Message
		if err := DecodeMessage(body, &m); err != nil || m.Provenance == nil {
			b.Fatal(err)
		}
	}
}
