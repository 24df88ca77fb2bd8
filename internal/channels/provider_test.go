package channels

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/outbox"
)

type runAcct struct {
	id string
	on bool
}

func (r runAcct) AccountID() string { return r.id }
func (r runAcct) Enabled() bool     { return r.on }

func TestFindAccount(t *testing.T) {
	accts := []runAcct{{"off", false}, {"work", true}, {"home", true}}
	for _, tc := range []struct {
		id, want string
		ok       bool
	}{
		{"work", "work", true},
		{" Home ", "home", true},
		{"off", "off", true},
		{"", "work", true},
		{DefaultAccountID, "work", true},
		{"nobody", "", false},
	} {
		got, ok := FindAccount(accts, tc.id)
		if ok != tc.ok || got.id != tc.want {
			t.Errorf("FindAccount(%q) = %q %v, want %q %v", tc.id, got.id, ok, tc.want, tc.ok)
		}
	}
	if _, ok := FindAccount([]runAcct{{"off", false}}, ""); ok {
		t.Error("the default of only disabled accounts was found")
	}
}

func TestClassifyHTTP(t *testing.T) {
	boom := errors.New("refused")
	for _, tc := range []struct {
		name      string
		status    int
		header    string
		wait      time.Duration // a RetryAfterError's wait; 0 for none
		permanent bool
		connected bool
	}{
		{"429 with Retry-After", http.StatusTooManyRequests, "7", 7 * time.Second, false, true},
		{"429 without", http.StatusTooManyRequests, "", time.Minute, false, true},
		{"429 with a bad Retry-After", http.StatusTooManyRequests, "soon", time.Minute, false, true},
		{"503", http.StatusServiceUnavailable, "", 0, false, false},
		{"401", http.StatusUnauthorized, "", 0, true, true},
		{"400", http.StatusBadRequest, "", 0, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Counters
			c.SetConnected(true)
			h := http.Header{}
			if tc.header != "" {
				h.Set("Retry-After", tc.header)
			}
			err := ClassifyHTTP(&c, tc.status, h, time.Minute, boom)
			if !errors.Is(err, boom) {
				t.Fatalf("%v does not wrap the refusal", err)
			}
			var ra *RetryAfterError
			if got := errors.As(err, &ra); got != (tc.wait > 0) || (got && ra.After != tc.wait) {
				t.Errorf("retry after: %v", err)
			}
			if errors.Is(err, outbox.ErrPermanent) != tc.permanent {
				t.Errorf("permanent = %v, want %v", !tc.permanent, tc.permanent)
			}
			if c.Connected() != tc.connected {
				t.Errorf("connected = %v, want %v", c.Connected(), tc.connected)
			}
		})
	}
}

func TestSendPiecesResumesARetriedDelivery(t *testing.T) {
	p := NewProvider("test", "Test", ProviderOptions{})
	var sent []string
	fail := true
	send := func(_ int, piece string) error {
		if piece == "b" && fail {
			fail = false
			return errors.New("provider down")
		}
		sent = append(sent, piece)
		return nil
	}
	pieces := []string{"a", "b", "c"}
	if err := p.SendPieces("k1", pieces, send); err == nil {
		t.Fatal("the failed piece was not reported")
	}
	if err := p.SendPieces("k1", pieces, send); err != nil {
		t.Fatal(err)
	}
	if got := p.Progress.Done("k1"); got != 0 {
		t.Errorf("a complete delivery left progress %d", got)
	}
	if want := []string{"a", "b", "c"}; len(sent) != 3 || sent[0] != "a" || sent[1] != "b" || sent[2] != "c" {
		t.Errorf("sent %v, want %v", sent, want)
	}
}

func TestAdmit(t *testing.T) {
	var replies []string
	reply := func(_ context.Context, to, text string) error {
		replies = append(replies, to)
		return nil
	}
	p := NewProvider("test", "Test", ProviderOptions{
		Paired: func(account, sender string) bool { return account == "a1" && sender == "approved" },
		Pair: func(_ context.Context, account, sender, _ string) (string, bool, error) {
			return "ABCD2345", sender == "fresh", nil
		}})
	acc := Access{DMPolicy: "pairing"}
	for _, tc := range []struct {
		sender string
		admit  bool
		reply  bool
	}{
		{"approved", true, false},
		{"fresh", false, true},
		{"asked-before", false, false},
	} {
		replies = nil
		m := Inbound{ChatType: ChatDirect, SenderID: tc.sender, To: "test:" + tc.sender}
		if got := p.Admit(context.Background(), acc, "a1", &m, reply); got != tc.admit {
			t.Errorf("%s admitted = %v", tc.sender, got)
		}
		if (len(replies) == 1 && replies[0] == m.To) != tc.reply {
			t.Errorf("%s: pairing replies %v", tc.sender, replies)
		}
	}
	m := Inbound{ChatType: ChatGroup, ChatID: "g", SenderID: "approved"}
	if p.Admit(context.Background(), Access{GroupPolicy: "disabled"}, "a1", &m, reply) {
		t.Error("a group message under groupPolicy disabled was admitted")
	}
}
