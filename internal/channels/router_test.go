package channels

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// fakeGate answers Chat with a fixed result or error and records the
// requests.
type fakeGate struct {
	res  api.ChatResult
	err  error
	chat []api.ChatRequest
}

func (g *fakeGate) Chat(_ context.Context, _ api.Principal, req api.ChatRequest) (api.ChatResult, error) {
	g.chat = append(g.chat, req)
	return g.res, g.err
}

func (g *fakeGate) WaitRun(context.Context, api.Principal, api.WaitRequest) (domain.Run, error) {
	return domain.Run{Status: domain.RunOK}, nil
}

func (g *fakeGate) Deliver(context.Context, api.Principal, api.DeliverRequest) (api.DeliverResult, error) {
	return api.DeliverResult{}, nil
}

// A refusal by the gate is an outcome (the adapter acknowledges the
// message); any other error asks for the message again.
func TestRouterRefusalIsAcknowledged(t *testing.T) {
	cfg, err := config.Parse([]byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := Inbound{Channel: "telegram", EventID: "9", ChatType: ChatGroup, ChatID: "-1", SenderID: "7", Text: "hi", To: "telegram:-1"}
	tests := []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"send policy denies", domain.Invalid("send blocked by session policy"), false},
		{"owner-only command", domain.Errorf(domain.CodeForbidden, "/send is only available to owners"), false},
		{"store down", errors.New("database is locked"), true},
		{"unavailable", domain.Errorf(domain.CodeUnavailable, "shutting down"), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := &fakeGate{err: tc.err}
			r := NewRouter(RouterOptions{Gate: g, Config: func() *config.Config { return cfg }})
			out, err := r.Handle(context.Background(), m)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Handle error = %v, want error %v", err, tc.wantErr)
			}
			if out.SessionKey != "agent:main:telegram:group:-1" || len(g.chat) != 1 || g.chat[0].IdempotencyKey != "telegram:default:9" {
				t.Errorf("outcome %+v, requests %+v", out, g.chat)
			}
		})
	}
}

// A message that is only a file is a turn, and its files ride on the
// chat request.
func TestRouterPassesFiles(t *testing.T) {
	cfg, err := config.Parse([]byte(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &fakeGate{res: api.ChatResult{Run: domain.Run{ID: "r1"}, Created: true}}
	r := NewRouter(RouterOptions{Gate: g, Config: func() *config.Config { return cfg }})
	m := Inbound{Channel: "telegram", EventID: "10", ChatType: ChatDirect, ChatID: "7", SenderID: "7", To: "telegram:7",
		Files: []attachments.File{{Name: "photo-a.jpg", MimeType: "image/jpeg", Data: []byte{0xff, 0xd8}}}}
	out, err := r.Handle(context.Background(), m)
	if err != nil || out.RunID != "r1" {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if len(g.chat) != 1 || len(g.chat[0].Attachments) != 1 || g.chat[0].Attachments[0].Name != "photo-a.jpg" {
		t.Fatalf("requests %+v", g.chat)
	}
	m.Files = nil
	if _, err := r.Handle(context.Background(), m); err != nil || len(g.chat) != 1 {
		t.Fatalf("a message with neither text nor files started a turn (%d requests, %v)", len(g.chat), err)
	}
}
