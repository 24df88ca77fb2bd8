package keylock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestSameKeySerializes(t *testing.T) {
	var m Map
	unlock := m.Lock("a")
	got := make(chan struct{})
	go func() {
		u := m.Lock("a")
		close(got)
		u()
	}()
	// A different key is not held up by "a".
	done := make(chan struct{})
	go func() {
		u := m.Lock("b")
		u()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("lock of key b waited for key a")
	}
	select {
	case <-got:
		t.Fatal("second holder of key a got in while the first held it")
	default:
	}
	unlock()
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("second holder of key a never got the lock")
	}
}

func TestEntriesRemovedWhenReleased(t *testing.T) {
	var m Map
	var wg sync.WaitGroup
	counts := map[string]int{}
	var mu sync.Mutex
	for i := range 64 {
		key := []string{"x", "y", "z"}[i%3]
		wg.Go(func() {
			for range 100 {
				u := m.Lock(key)
				mu.Lock()
				counts[key]++
				mu.Unlock()
				u()
			}
		})
	}
	wg.Wait()
	if n := m.Len(); n != 0 {
		t.Errorf("map holds %d entries after every holder left", n)
	}
	if counts["x"]+counts["y"]+counts["z"] != 6400 {
		t.Errorf("counts %v", counts)
	}
}

// TestMutualExclusion checks no two holders of one key overlap (run with -race).
func TestMutualExclusion(t *testing.T) {
	var m Map
	var wg sync.WaitGroup
	held := 0
	for range 16 {
		wg.Go(func() {
			for range 200 {
				u := m.Lock("k")
				held++
				if held != 1 {
					t.Errorf("%d holders at once", held)
				}
				held--
				u()
			}
		})
	}
	wg.Wait()
}

// TestLockContextGivesUp: a waiter whose ctx ends leaves with ctx's error,
// holds nothing and leaves no entry behind; the holder is not disturbed.
func TestLockContextGivesUp(t *testing.T) {
	var m Map
	unlock := m.Lock("k")
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		u, err := m.LockContext(ctx, "k")
		if u != nil {
			u()
		}
		got <- err
	}()
	cancel()
	select {
	case err := <-got:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("LockContext = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LockContext did not return when its ctx ended")
	}
	if n := m.Len(); n != 1 {
		t.Errorf("%d entries while one holder is left, want 1", n)
	}
	unlock()
	u, err := m.LockContext(context.Background(), "k")
	if err != nil {
		t.Fatal(err)
	}
	u()
	if n := m.Len(); n != 0 {
		t.Errorf("map holds %d entries after every holder left", n)
	}
}
