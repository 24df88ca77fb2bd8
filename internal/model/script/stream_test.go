package script

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestStreamPieces(t *testing.T) {
	tests := []struct {
		name string
		rule config.ScriptRule
		want []string
	}{
		{"chunkChars", config.ScriptRule{Reply: str("héllo world"), ChunkChars: 4}, []string{"héll", "o wo", "rld"}},
		{"chunkMs only uses the default size", config.ScriptRule{Reply: str("0123456789abcdefXY"), ChunkMs: 1}, []string{"01234567", "89abcdef", "XY"}},
		{"no options: no deltas", config.ScriptRule{Reply: str("whole")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, tt.rule)
			var got []string
			resp, err := m.Complete(context.Background(), domain.ModelRequest{Messages: []domain.Message{user("x")},
				OnDelta: func(d domain.ModelDelta) { got = append(got, d.Text) }})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pieces (-want +got):\n%s", diff)
			}
			if tt.want != nil && replyText(t, resp) != strings.Join(tt.want, "") {
				t.Errorf("final %q is not the pieces joined", replyText(t, resp))
			}
		})
	}
}

// TestStreamPace: pieces come chunkMs apart (the first at once), so a
// client sees partial text for a predictable time.
func TestStreamPace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(t, config.ScriptRule{Reply: str("aabbcc"), ChunkChars: 2, ChunkMs: 50})
		start := time.Now()
		var at []time.Duration
		_, err := m.Complete(context.Background(), domain.ModelRequest{Messages: []domain.Message{user("x")},
			OnDelta: func(domain.ModelDelta) { at = append(at, time.Since(start)) }})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]time.Duration{0, 50 * time.Millisecond, 100 * time.Millisecond}, at); diff != "" {
			t.Errorf("delta times (-want +got):\n%s", diff)
		}
	})
}

func TestStreamToolCall(t *testing.T) {
	m := newModel(t, config.ScriptRule{ToolCall: &config.ScriptToolCall{Name: "sessions_list", Arguments: map[string]any{"limit": 5}}, ChunkChars: 3})
	var calls []domain.ToolCallDelta
	resp, err := m.Complete(context.Background(), domain.ModelRequest{Messages: []domain.Message{user("x")},
		OnDelta: func(d domain.ModelDelta) { calls = append(calls, *d.ToolCall) }})
	if err != nil {
		t.Fatal(err)
	}
	call := resp.Message.Content.ToolCalls()[0]
	if calls[0].ID != call.ID || calls[0].Name != "sessions_list" {
		t.Fatalf("first piece %+v, want id %s and name", calls[0], call.ID)
	}
	var args strings.Builder
	for _, c := range calls[1:] {
		args.WriteString(c.Arguments)
	}
	if args.String() != string(call.Arguments) {
		t.Errorf("argument pieces join to %q, want %q", args.String(), call.Arguments)
	}
}

func TestStreamCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newModel(t, config.ScriptRule{Reply: str("aabbcc"), ChunkChars: 2, ChunkMs: 50})
		ctx, cancel := context.WithCancel(context.Background())
		n := 0
		_, err := m.Complete(ctx, domain.ModelRequest{Messages: []domain.Message{user("x")},
			OnDelta: func(domain.ModelDelta) { n++; cancel() }})
		if !errors.Is(err, context.Canceled) || n != 1 {
			t.Errorf("err %v after %d pieces; want context.Canceled after 1", err, n)
		}
	})
}
