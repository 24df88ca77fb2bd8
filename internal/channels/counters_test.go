package channels

import (
	"errors"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/outbox"
)

func TestCounters(t *testing.T) {
	var c Counters
	now := time.UnixMilli(1_000)
	c.Started(now)
	c.Received(now.Add(time.Second))
	boom := errors.New("provider down")
	for _, err := range []error{nil, nil, outbox.Permanent(errors.New("chat not found")), boom,
		&RetryAfterError{After: time.Second, Err: boom}} {
		if got := c.Sent(err, now.Add(2*time.Second)); got != err {
			t.Errorf("Sent(%v) returned %v", err, got)
		}
	}
	c.Retry()
	var s AccountStatus
	c.Fill(&s)
	want := AccountStatus{LastStartAt: 1_000, LastInboundAt: 2_000, LastOutboundAt: 3_000, Received: 1, Delivered: 2, Retried: 3, Failed: 1}
	if s != want {
		t.Errorf("status %+v, want %+v", s, want)
	}
}
