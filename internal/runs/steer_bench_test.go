package runs

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// BenchmarkTakeSteersQueue200 is the cost a running run pays before each
// model call to look for steers, with 200 ordinary runs queued on its lane
// (the requester of 200 sub-agents, each announce a queued run) and none a
// steer. BenchmarkTakeSteersScan200 is the scan a lane pays once after a
// steer was enqueued.
func BenchmarkTakeSteersQueue200(b *testing.B) {
	rt := &Runtime{sched: newScheduler(schedulerConfig{}), exec: newExecuting(), waits: newWaitBoard()}
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent(strings.Repeat("announce text ", 40))}})
	l := &lane{running: true}
	for i := range 200 {
		l.queue = append(l.queue, domain.Run{ID: fmt.Sprint(i), SessionKey: "k", Spec: spec})
	}
	rt.sched.lanes["k"] = l
	host := domain.Run{ID: "host", SessionKey: "k"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		rt.takeSteers(ctx, host, nil, nil, func() {})
	}
	if len(l.queue) != 200 {
		b.Fatalf("queue = %d", len(l.queue))
	}
}

func BenchmarkTakeSteersScan200(b *testing.B) {
	rt := &Runtime{sched: newScheduler(schedulerConfig{}), exec: newExecuting(), waits: newWaitBoard()}
	spec, _ := json.Marshal(Spec{UserMessage: &domain.Message{Role: "user", Content: domain.TextContent(strings.Repeat("announce text ", 40))}})
	l := &lane{running: true}
	for i := range 200 {
		l.queue = append(l.queue, domain.Run{ID: fmt.Sprint(i), SessionKey: "k", Spec: spec})
	}
	rt.sched.lanes["k"] = l
	host := domain.Run{ID: "host", SessionKey: "k"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		l.steers = 1 // as if a steer had been enqueued and had run already
		rt.takeSteers(ctx, host, nil, nil, func() {})
	}
}
