package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestChatDeliverNeedsRecipient: `chat --deliver` to an external channel
// with no --to and no earlier recipient there is refused by the engine
// (exit 1, naming the missing to) and runs nothing; --best-effort-deliver
// runs the turn without a delivery; once the session has a recipient on
// the channel, --deliver without --to goes to it.
func TestChatDeliverNeedsRecipient(t *testing.T) {
	c := newCLI(t)
	const key = "agent:main:tg"
	r := c.run("chat", key, "hi", "--channel", "telegram", "--deliver")
	if r.code != exitError || !strings.Contains(r.stderr, "delivery recipient is required: pass to or replyTo") || !strings.Contains(r.stderr, "telegram") {
		t.Fatalf("chat --channel telegram --deliver: exit %d, stderr %q; want exit 1 naming the missing to", r.code, r.stderr)
	}
	if runs := jsonOf[struct{ Runs []domain.Run }](c, "runs", "list", "--session", key, "--json"); len(runs.Runs) != 0 {
		t.Fatalf("a refused chat left runs %+v", runs.Runs)
	}

	best := jsonOf[chatOutput](c, "chat", key, "hi", "--channel", "telegram", "--deliver", "--best-effort-deliver", "--json")
	if best.Status != "ok" || best.Reply != "echo: hi" {
		t.Fatalf("best effort chat = %+v", best)
	}

	c.ok("chat", key, "from 42", "--channel", "telegram", "--to", "42")
	sent := jsonOf[chatOutput](c, "chat", key, "again", "--channel", "telegram", "--deliver", "--json")
	// The outbox has exactly the one delivery, of the last run, to 42.
	outbox := jsonOf[struct{ Items []domain.OutboxItem }](c, "outbox", "list", "--json")
	var got []string
	for _, it := range outbox.Items {
		if it.Kind == domain.OutboxDelivery {
			got = append(got, it.RunID+" "+it.Channel+" "+it.To)
		}
	}
	if want := sent.RunID + " telegram 42"; len(got) != 1 || got[0] != want {
		t.Errorf("deliveries = %q, want [%q]", got, want)
	}
}
