// Package chantest has the test doubles the channel adapters' tests
// share.
package chantest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// EchoSink answers every message at once through Send, as the channel
// layer would through the outbox ("echo: <text>", keyed by the event), and
// records what arrived. A repeated event id is a duplicate and answers
// nothing, as the Router's idempotency makes it.
type EchoSink struct {
	// Send is the adapter's Send.
	Send func(context.Context, channels.Outbound) error

	mu   sync.Mutex
	got  []channels.Inbound
	seen map[string]int
}

// Handle records m and echoes it unless it is a duplicate.
func (s *EchoSink) Handle(ctx context.Context, m channels.Inbound) (channels.Outcome, error) {
	s.mu.Lock()
	s.got = append(s.got, m)
	if s.seen == nil {
		s.seen = map[string]int{}
	}
	s.seen[m.EventID]++
	dup := s.seen[m.EventID] > 1
	s.mu.Unlock()
	if dup {
		return channels.Outcome{Duplicate: true}, nil
	}
	return channels.Outcome{}, s.Send(ctx, channels.Outbound{AccountID: m.AccountID, To: m.To, Text: "echo: " + m.Text, IdempotencyKey: "k-" + m.EventID})
}

// Count is how many messages arrived, duplicates included.
func (s *EchoSink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.got)
}

// Last is the last message that arrived.
func (s *EchoSink) Last() channels.Inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.got) == 0 {
		return channels.Inbound{}
	}
	return s.got[len(s.got)-1]
}

// Inbound returns the first message with text and how many arrived.
func (s *EchoSink) Inbound(text string) (channels.Inbound, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var first channels.Inbound
	n := 0
	for _, m := range s.got {
		if m.Text == text {
			if n == 0 {
				first = m
			}
			n++
		}
	}
	return first, n
}

// WaitFor polls cond until it holds, for at most 30 s: for state with no
// event to wait on (a fake server's record, an adapter's status).
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, 30*time.Second, what, cond)
}
