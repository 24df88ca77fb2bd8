package sqlite

import (
	"strconv"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// BenchmarkReadContext400 reads a chat session's context as a turn that
// misses the runtime's context cache does: 400 messages, a user message
// with its provenance and the reply of each run, by session id.
func BenchmarkReadContext400(b *testing.B) {
	st := openBench(b)
	const key, sid = "agent:main:c1", "0b9f3c52-5a4e-4d8e-9a57-1f0c4e2d7a31"
	var msgs []domain.Message
	for i := range 200 {
		run := domain.NewID()
		msgs = append(msgs,
			domain.Message{Role: domain.RoleUser, RunID: run, Timestamp: benchNow + int64(i), Content: domain.TextContent("hi " + strconv.Itoa(i)),
				Provenance: &domain.Provenance{Kind: domain.ProvenanceExternalUser, SourceChannel: "webchat"}},
			domain.Message{Role: domain.RoleAssistant, RunID: run, Timestamp: benchNow + int64(i), Content: domain.BlockContent(domain.TextBlock("ok " + strconv.Itoa(i))),
				API: "script", Provider: "script", Model: "script", StopReason: domain.StopReasonStop})
	}
	err := st.Update(b.Context(), func(tx domain.Tx) error {
		if err := tx.PutSession(domain.Session{Key: key, AgentID: "main", SessionID: sid, Kind: domain.KindMain, UpdatedAt: benchNow}); err != nil {
			return err
		}
		_, err := tx.AppendMessages(key, sid, msgs)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		got, err := st.ReadMessages(b.Context(), key, domain.MessageQuery{SessionID: sid, Limit: 400})
		if err != nil || len(got) != 400 || got[0].RunID != got[1].RunID || got[0].SessionID != sid {
			b.Fatalf("ReadMessages = %d messages, %v", len(got), err)
		}
	}
}
