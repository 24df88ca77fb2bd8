package approvals

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
)

// approverRig is an Approver on a real SQLite store whose hooks record
// what it carries out and posts.
type approverRig struct {
	ap    *Approver
	store *sqlite.Store
	now   time.Time

	mu     sync.Mutex
	sent   []string // approval ids whose send was carried out
	posted []string // texts posted into the requester session
	events []domain.Event
	pokes  int
}

func newRig(t *testing.T) *approverRig {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	cfg := &config.Config{}
	cfg.Approvals.Rules = []config.ApprovalRule{{Tool: ToolSend, TargetAgent: "ops"}}
	r := &approverRig{store: st, now: time.UnixMilli(1_000_000)}
	ids := 0
	r.ap = New(Options{Store: st, Config: func() *config.Config { return cfg },
		AgentOf: func(key string) string { return strings.Split(key, ":")[1] },
		Audit:   audit.NewLog(st, func() time.Time { return r.now }, nil),
		Publish: func(ev domain.Event) { r.mu.Lock(); r.events = append(r.events, ev); r.mu.Unlock() },
		Poke:    func() { r.mu.Lock(); r.pokes++; r.mu.Unlock() },
		Send: func(_ context.Context, a domain.Approval, p api.SendRequest) (api.SendResult, error) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.sent = append(r.sent, a.ID)
			return api.SendResult{Status: "accepted", RunID: "run-" + a.ID}, nil
		},
		Post: func(_ context.Context, key string, msg domain.Message) error {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.posted = append(r.posted, key+": "+msg.Content.Text())
			return nil
		},
		IsOwner: func(channel, sender string) bool { return channel == "telegram" && sender == "owner" },
		Now:     func() time.Time { return r.now },
		NewID:   func() string { ids++; return "id" + string(rune('0'+ids)) },
	})
	return r
}

func (r *approverRig) send(t *testing.T, target string) api.SendResult {
	t.Helper()
	zero := 0
	c := Call{Tool: ToolSend, RequesterKey: "agent:main:a", RequesterAgent: "main", TargetKey: target, TargetAgent: strings.Split(target, ":")[1]}
	res, held, err := r.ap.HoldSend(t.Context(), c, Origin{}, api.SendRequest{SessionKey: target, Message: "hi", TimeoutSeconds: &zero}, target,
		func(context.Context, domain.Approval, api.SendRequest) (api.SendResult, error) {
			t.Fatal("a pending send is not replayed")
			return api.SendResult{}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if !held {
		return api.SendResult{}
	}
	return res
}

func TestApproverHoldsDecidesAndCarriesOutOnce(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	if res := r.send(t, "agent:main:b"); res.Status != "" {
		t.Fatalf("a send no rule matches was held: %+v", res)
	}
	res := r.send(t, "agent:ops:x")
	if res.Status != api.StatusPendingApproval || res.ApprovalID == "" {
		t.Fatalf("held send answered %+v, want pending_approval with an approval id", res)
	}
	id := res.ApprovalID
	items, err := r.store.ListOutbox(ctx, domain.OutboxQuery{SessionKey: "agent:main:a"})
	if err != nil || len(items) != 1 || items[0].Kind != OutboxKind || items[0].NextAttemptAt != r.now.UnixMilli()+int64(config.ApprovalsConfig{}.ApprovalExpiry())*1000 {
		t.Fatalf("outbox after the hold: %+v %v; want one approval item due at the expiry", items, err)
	}
	if err := r.ap.Deliver(ctx, items[0]); err == nil || !strings.Contains(err.Error(), "pending until") {
		t.Fatalf("delivering a pending approval before its expiry: %v, want a retry later", err)
	}

	if _, _, err := r.ap.Command(ctx, "agent:main:a", "telegram", "stranger", "/approve "+id); domain.ErrorCode(err) != domain.CodeForbidden {
		t.Fatalf("/approve by a non-owner: %v, want forbidden", err)
	}
	out, handled, err := r.ap.Command(ctx, "agent:main:a", "telegram", "owner", "/approve "+id)
	if err != nil || !handled || !strings.Contains(out.Reply, "allowed") {
		t.Fatalf("/approve by an owner: %+v %v %v", out, handled, err)
	}
	again, err := r.ap.Resolve(ctx, "laptop", api.ApprovalResolveRequest{ID: id, Kind: api.ApprovalKindPlugin, Decision: api.DecisionDeny})
	if err != nil || again.Applied || again.Approval.Status != string(domain.ApprovalAllowed) {
		t.Fatalf("a second decision: %+v %v; want applied=false and the approval still allowed", again, err)
	}

	items, _ = r.store.ListOutbox(ctx, domain.OutboxQuery{SessionKey: "agent:main:a"})
	if len(items) != 1 || items[0].NextAttemptAt != r.now.UnixMilli() {
		t.Fatalf("outbox after the decision: %+v; want the item due now", items)
	}
	if err := r.ap.Deliver(ctx, items[0]); err != nil {
		t.Fatal(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.sent) != 1 || r.sent[0] != id || len(r.posted) != 1 || !strings.Contains(r.posted[0], "run-"+id) || r.pokes != 1 {
		t.Fatalf("carried out %v, posted %v, pokes %d; want the send once, its run posted to the requester, one poke", r.sent, r.posted, r.pokes)
	}
	if len(r.events) != 2 || r.events[0].Approval.Status != domain.ApprovalPending || r.events[1].Approval.Status != domain.ApprovalAllowed {
		t.Fatalf("events %+v; want the hold, then the decision", r.events)
	}
}

func TestApproverExpiresAPendingApproval(t *testing.T) {
	r := newRig(t)
	ctx := t.Context()
	id := r.send(t, "agent:ops:x").ApprovalID
	r.now = r.now.Add(time.Hour)
	items, _ := r.store.ListOutbox(ctx, domain.OutboxQuery{SessionKey: "agent:main:a"})
	if err := r.ap.Deliver(ctx, items[0]); err != nil {
		t.Fatal(err)
	}
	got, err := r.ap.Get(ctx, api.ApprovalGetRequest{ID: id})
	if err != nil || got.Approval.Status != string(domain.ApprovalExpired) || len(r.sent) != 0 || len(r.posted) != 1 || !strings.Contains(r.posted[0], "expired") {
		t.Fatalf("after the expiry: %+v %v, sent %v, posted %v", got, err, r.sent, r.posted)
	}
}

func TestApproverCommandParsing(t *testing.T) {
	r := newRig(t)
	for _, c := range []struct {
		msg     string
		handled bool
		code    string
	}{
		{"hello", false, ""},
		{"", false, ""},
		{"/approved x", false, ""},
		{"/approve", true, domain.CodeInvalid},
		{"/deny a b", true, domain.CodeInvalid},
		{"/approve a always extra", true, domain.CodeInvalid},
		{"/DENY nope", true, domain.CodeNotFound},
	} {
		_, handled, err := r.ap.Command(t.Context(), "agent:main:a", "telegram", "owner", c.msg)
		code := ""
		if err != nil {
			code = domain.ErrorCode(err)
		}
		if handled != c.handled || code != c.code {
			t.Errorf("Command(%q) = handled %v, %v; want %v, code %q", c.msg, handled, err, c.handled, c.code)
		}
	}
}
