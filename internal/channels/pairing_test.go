package channels

import (
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestPairing(t *testing.T) {
	p := NewPairing(filepath.Join(t.TempDir(), "pairing.json"))
	now := time.Unix(1_800_000_000, 0)
	p.now = func() time.Time { return now }
	code, fresh, err := p.Request("telegram", "", "7", "Ada")
	if err != nil || !fresh || len(code) != PairingCodeLen {
		t.Fatalf("first request: %q %v %v", code, fresh, err)
	}
	again, fresh, err := p.Request("telegram", "default", "7", "Ada")
	if err != nil || fresh || again != code {
		t.Fatalf("repeat request: %q %v %v, want the same code", again, fresh, err)
	}
	for _, s := range []string{"8", "9"} {
		if _, _, err := p.Request("telegram", "", s, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := p.Request("telegram", "", "10", ""); !errors.Is(err, ErrPairingFull) {
		t.Fatalf("fourth pending: %v, want ErrPairingFull", err)
	}
	if p.Approved("telegram", "", "7") {
		t.Fatal("approved before approval")
	}
	if _, err := p.Approve("telegram", "nope"); !errors.Is(err, ErrNoPairingCode) {
		t.Fatalf("approve unknown: %v", err)
	}
	r, err := p.Approve("telegram", code)
	if err != nil || r.SenderID != "7" {
		t.Fatalf("approve: %+v %v", r, err)
	}
	if !p.Approved("telegram", "default", "7") || p.Approved("discord", "default", "7") {
		t.Fatal("approval not recorded for its channel only")
	}
	list, _ := p.List("telegram")
	if len(list) != 2 {
		t.Fatalf("pending after approve: %d, want 2", len(list))
	}
	now = now.Add(PairingTTL + time.Second)
	if list, _ := p.List(""); len(list) != 0 {
		t.Fatalf("pending after the TTL: %d, want 0", len(list))
	}
}
