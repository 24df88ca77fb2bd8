package domain

import (
	"regexp"
	"testing"
	"time"
)

var uuidV7 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestNewTimeID: a UUID v7 whose first 48 bits are the time in
// milliseconds, so ids from later milliseconds sort after earlier ones.
func TestNewTimeID(t *testing.T) {
	before := time.Now().UnixMilli()
	a := NewTimeID()
	after := time.Now().UnixMilli()
	if !uuidV7.MatchString(a) {
		t.Fatalf("NewTimeID() = %q, not a UUID v7", a)
	}
	var ms int64
	for _, c := range a[:8] + a[9:13] {
		ms = ms<<4 | int64(hexDigit(c))
	}
	if ms < before || ms > after {
		t.Fatalf("NewTimeID() = %q carries %d ms, want within [%d, %d]", a, ms, before, after)
	}
	if b := NewTimeID(); b == a {
		t.Fatalf("two NewTimeID() calls gave %q twice", a)
	}
	// Ids of a later millisecond sort after: compare one from 2 ms later.
	deadline := time.Now().Add(time.Second)
	for time.Now().UnixMilli() < after+2 && time.Now().Before(deadline) {
	}
	if c := NewTimeID(); c <= a {
		t.Fatalf("a later NewTimeID() %q sorts before %q", c, a)
	}
}

func hexDigit(c rune) int {
	if c >= 'a' {
		return int(c-'a') + 10
	}
	return int(c - '0')
}
