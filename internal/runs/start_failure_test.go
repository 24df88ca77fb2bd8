package runs

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// A start whose crash rule cannot be written (the store refuses the
// re-queue) fails naming the run, and changes nothing: the run is still
// running in the store, and the next start applies the crash rule to it.
func TestStartFailsWhenTheCrashRuleCannotBeWritten(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	const key, id = "agent:main:s", "r1"
	deadProcess(t, st, key, id, 1)

	fs := &failingStore{Store: st, err: errors.New("disk I/O error")}
	fs.n.Store(1)
	m := &fakeModel{release: make(chan struct{}), started: make(chan string, 64)}
	close(m.release)
	rt, err := New(Options{Store: fs, Models: fakeModels{m}, Hooks: &hooks{}, MaxSteps: 5})
	if err != nil {
		t.Fatal(err)
	}
	err = rt.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if cerr := rt.Close(ctx); cerr != nil {
		t.Error(cerr)
	}
	if err == nil || !strings.Contains(err.Error(), "recover run "+id) || !strings.Contains(err.Error(), "disk I/O error") {
		t.Fatalf("start = %v, want an error naming the run and the cause", err)
	}
	if r, err := st.GetRun(context.Background(), id); err != nil || r.Status != domain.RunRunning || r.Attempt != 1 {
		t.Fatalf("run after the failed start = %s attempt %d, %v; want it left running, attempt 1", r.Status, r.Attempt, err)
	}

	rt2, _ := startOn(t, st, nil)
	if rep := rt2.Report(); rep.Requeued != 1 {
		t.Fatalf("the next start's report = %+v, want the run re-queued", rep)
	}
	r, err := rt2.Wait(context.Background(), id, 10*time.Second)
	if err != nil || r.Status != domain.RunOK || r.Attempt != 2 {
		t.Fatalf("run after the next start = %s attempt %d, %v; want ok on attempt 2", r.Status, r.Attempt, err)
	}
}

// Wait returns when its context ends, with the context's error and the
// run's current state: the run goes on.
func TestWaitEndsWithItsContext(t *testing.T) {
	e := newEnv(t, nil)
	r := e.submit("agent:main:w", "block", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := e.rt.Wait(ctx, r.ID, 10*time.Second)
	if !errors.Is(err, context.Canceled) || got.ID != r.ID || got.Status != domain.RunRunning {
		t.Fatalf("wait with an ended context = %s %s, %v; want the running run and context.Canceled", got.ID, got.Status, err)
	}
	close(e.model.release)
	if done := e.wait(r.ID); done.Status != domain.RunOK {
		t.Fatalf("run after the abandoned wait = %s, want ok", done.Status)
	}
}
