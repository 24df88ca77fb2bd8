package channels

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestThrottleDue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name      string
		shownAt   time.Time // zero: nothing shown yet
		shown     string
		now       time.Time
		text      string
		wantShow  bool
		wantWaitD time.Duration
	}{
		{"first text at once", time.Time{}, "", t0, "a", true, 0},
		{"no text", time.Time{}, "", t0, "", false, 0},
		{"blank text", time.Time{}, "", t0, " \n", false, 0},
		{"what may become NO_REPLY", time.Time{}, "", t0, "NO_RE", false, 0},
		{"a silence token", time.Time{}, "", t0, "NO_REPLY", false, 0},
		{"past a silence token", time.Time{}, "", t0, "NO_REPLY here", true, 0},
		{"same text never again", t0, "a", t0.Add(time.Hour), "a", false, 0},
		{"grown text within the second waits", t0, "a", t0.Add(300 * time.Millisecond), "ab", false, 700 * time.Millisecond},
		{"grown text after the second", t0, "a", t0.Add(time.Second), "ab", true, 0},
		{"same text within the second: no wait either", t0, "a", t0.Add(10 * time.Millisecond), "a", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			th := Throttle{Every: time.Second}
			if !tc.shownAt.IsZero() {
				th.Shown(tc.shownAt, tc.shown)
			}
			show, wait := th.Due(tc.now, tc.text)
			if show != tc.wantShow || wait != tc.wantWaitD {
				t.Errorf("Due = %v, %v; want %v, %v", show, wait, tc.wantShow, tc.wantWaitD)
			}
		})
	}
}

// fakeStreamer is a Sink whose run streams the texts sent on texts and
// ends when texts is closed.
type fakeStreamer struct {
	SinkFunc
	texts chan string
}

func (f fakeStreamer) StreamRun(ctx context.Context, _ string, each func(string)) error {
	for {
		select {
		case s, ok := <-f.texts:
			if !ok {
				return nil
			}
			each(s)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// FollowRun shows the first text at once, holds the growth back until
// the throttle allows it, shows the latest text then, and stops when the
// run ends.
func TestFollowRunThrottles(t *testing.T) {
	f := fakeStreamer{texts: make(chan string)}
	var mu sync.Mutex
	var shown []string
	var at []time.Time
	showed := make(chan struct{}, 10)
	done := make(chan struct{})
	every := 200 * time.Millisecond
	go func() {
		defer close(done)
		FollowRun(context.Background(), f, "run-1", every, func(_ context.Context, s string) error {
			mu.Lock()
			shown, at = append(shown, s), append(at, time.Now())
			mu.Unlock()
			showed <- struct{}{}
			return nil
		})
	}()
	wait := func() {
		t.Helper()
		select {
		case <-showed:
		case <-time.After(10 * time.Second):
			t.Fatal("nothing shown")
		}
	}
	f.texts <- "a"
	wait()
	f.texts <- "ab"
	f.texts <- "abc"
	f.texts <- "abc"
	wait()
	close(f.texts)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("FollowRun went on after the run ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 2 || shown[0] != "a" || shown[1] != "abc" {
		t.Fatalf("shown %q, want [a abc]", shown)
	}
	if gap := at[1].Sub(at[0]); gap < every {
		t.Errorf("two edits %v apart, want at least %v", gap, every)
	}
}

// A sink that cannot stream shows nothing; a failed show ends following.
func TestFollowRunNothingOrStop(t *testing.T) {
	n := 0
	FollowRun(context.Background(), SinkFunc(nil), "run-1", time.Millisecond, func(context.Context, string) error { n++; return nil })
	if n != 0 {
		t.Errorf("a sink that cannot stream: %d shows", n)
	}
	f := fakeStreamer{texts: make(chan string, 2)}
	f.texts <- "a"
	done := make(chan struct{})
	go func() {
		defer close(done)
		FollowRun(context.Background(), f, "run-1", time.Millisecond, func(context.Context, string) error { return context.Canceled })
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a failed show did not end following")
	}
}
