package runs

import (
	"testing"
	"time"
)

// A running run's progress is readable by its id and by its session's
// key while it runs here, and by neither once it ended.
func TestProgressWhileRunning(t *testing.T) {
	e := newEnv(t, nil)
	const key = "agent:main:p"
	r := e.submit(key, "block", nil)
	select {
	case <-e.model.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the model was not called")
	}
	p, ok := e.rt.Progress(r.ID)
	if !ok || p.RunID != r.ID || p.SessionKey != key || p.Step != 1 || p.Phase != "model" {
		t.Fatalf("progress = %+v, %v; want step 1 in its model call", p, ok)
	}
	if s, ok := e.rt.SessionProgress(key); !ok || s.RunID != r.ID {
		t.Fatalf("session progress = %+v, %v; want the run's", s, ok)
	}
	if _, ok := e.rt.SessionProgress("agent:main:idle"); ok {
		t.Fatal("an idle session has progress")
	}
	close(e.model.release)
	e.wait(r.ID)
	if p, ok := e.rt.Progress(r.ID); ok {
		t.Fatalf("progress after the end = %+v", p)
	}
	if p, ok := e.rt.SessionProgress(key); ok {
		t.Fatalf("session progress after the end = %+v", p)
	}
}
