package channels

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waitingSink is a Sink whose runs end when ended is closed.
type waitingSink struct {
	SinkFunc
	ended chan struct{}
}

func (s waitingSink) WaitRun(ctx context.Context, _ string) error {
	select {
	case <-s.ended:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// The typing action repeats while the run runs and stops when it ends.
func TestKeepTypingUntilTheRunEnds(t *testing.T) {
	s := waitingSink{ended: make(chan struct{})}
	sent := make(chan struct{}, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		KeepTyping(context.Background(), s, "run-1", time.Millisecond, func(context.Context) error {
			sent <- struct{}{}
			return nil
		})
	}()
	for range 3 {
		select {
		case <-sent:
		case <-time.After(10 * time.Second):
			t.Fatal("the typing action was not repeated while the run ran")
		}
	}
	close(s.ended)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("typing went on after the run ended")
	}
}

func TestKeepTypingOnceOrNever(t *testing.T) {
	n := 0
	count := func(context.Context) error { n++; return nil }
	KeepTyping(context.Background(), SinkFunc(nil), "run-1", time.Millisecond, count)
	if n != 1 {
		t.Errorf("a sink that cannot wait: %d actions, want 1", n)
	}
	n = 0
	KeepTyping(context.Background(), waitingSink{ended: make(chan struct{})}, "", time.Millisecond, count)
	if n != 0 {
		t.Errorf("no run: %d actions, want 0", n)
	}
	// A failed action ends the typing although the run goes on.
	KeepTyping(context.Background(), waitingSink{ended: make(chan struct{})}, "run-1", time.Millisecond,
		func(context.Context) error { return errors.New("forbidden") })
}
