package channels

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/delivery"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// textOnly is an adapter that sends text only; withFiles one that sends
// files too. Both record what they were asked to send.
type textOnly struct{ sent []Outbound }

func (a *textOnly) Channel() string                   { return "textonly" }
func (a *textOnly) Start(context.Context, Sink) error { return nil }
func (a *textOnly) Stop(context.Context) error        { return nil }
func (a *textOnly) Status() []AccountStatus           { return nil }
func (a *textOnly) Send(_ context.Context, m Outbound) error {
	a.sent = append(a.sent, m)
	return nil
}

type withFiles struct{ textOnly }

func (a *withFiles) Channel() string { return "withfiles" }
func (a *withFiles) SendsFiles()     {}

func TestDelivererFiles(t *testing.T) {
	reg := NewRegistry(nil, nil)
	plain, files := &textOnly{}, &withFiles{}
	for _, a := range []Adapter{plain, files} {
		if err := reg.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	item := delivery.SendItem("agent:main:main", "", "to", "k", "caption",
		[]attachments.File{{Name: "a.txt", Data: []byte("hi")}}, 1)

	d, _ := reg.Deliverer("withfiles")
	if err := d.Deliver(context.Background(), item); err != nil {
		t.Fatal(err)
	}
	if len(files.sent) != 1 || files.sent[0].Text != "caption" || len(files.sent[0].Files) != 1 ||
		string(files.sent[0].Files[0].Data) != "hi" || files.sent[0].Files[0].MimeType != "text/plain" {
		t.Fatalf("sent %+v", files.sent)
	}

	d, _ = reg.Deliverer("textonly")
	err := d.Deliver(context.Background(), item)
	if !errors.Is(err, outbox.ErrPermanent) || err.Error() == "" || len(plain.sent) != 0 {
		t.Fatalf("files to a text-only channel: %v (sent %d), want a permanent refusal", err, len(plain.sent))
	}
}
