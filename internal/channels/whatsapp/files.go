package whatsapp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// SendsFiles marks the adapter as one that sends files (channels.FileSender).
func (a *Adapter) SendsFiles() {}

// Cloud API media limits: a caption's characters, and the bytes of a
// file of each message type (Meta's "Supported media types").
const (
	maxCaptionChars = 1024
	maxImageBytes   = 5 << 20
	maxAVBytes      = 16 << 20
	maxDocBytes     = 100 << 20
	uploadTimeout   = 2 * time.Minute
)

// mediaKind is the message type a file is sent as, and its byte limit:
// JPEG and PNG as image, MP4 and 3GPP as video, the Cloud API's audio
// types as audio, anything else as document.
func mediaKind(mimeType string) (kind string, limit int64) {
	switch mimeType {
	case "image/jpeg", "image/png":
		return "image", maxImageBytes
	case "video/mp4", "video/3gpp":
		return "video", maxAVBytes
	case "audio/aac", "audio/amr", "audio/mpeg", "audio/mp4", "audio/ogg":
		return "audio", maxAVBytes
	}
	return "document", maxDocBytes
}

// sendFiles sends a message's files: each uploaded (POST
// /<phone-number-id>/media) and then sent as a message of its type that
// names the upload's id, the text as the first file's caption when it
// fits and the first file takes one (audio does not), as text messages
// before the files otherwise. A file over its type's limit fails the
// delivery for good before anything is sent. A retried delivery resumes
// after the steps the Cloud API already took.
func (a *Adapter) sendFiles(ctx context.Context, x *acct, msg channels.Outbound) error {
	recipientType, target, err := recipient(msg.To)
	if err != nil {
		return err
	}
	for _, f := range msg.Files {
		t := attachments.TypeOf(f)
		if kind, limit := mediaKind(t); int64(len(f.Data)) > limit {
			return outbox.Permanent(fmt.Errorf("whatsapp: file %q (%s) has %d bytes, over the Cloud API's %d-byte limit for %s messages",
				f.Name, t, len(f.Data), limit, kind))
		}
	}
	caption := toWhatsApp(strings.TrimSpace(msg.Text))
	var steps []func() error
	firstKind, _ := mediaKind(attachments.TypeOf(msg.Files[0]))
	if caption != "" && (len([]rune(caption)) > maxCaptionChars || firstKind == "audio") {
		limit := x.cfg.TextChunkLimit
		if limit <= 0 || limit > DefaultTextLimit {
			limit = DefaultTextLimit
		}
		for _, piece := range channels.SplitText(caption, limit) {
			steps = append(steps, func() error {
				return a.message(ctx, x, recipientType, target, "text", map[string]any{"body": piece, "preview_url": false}, msg.IdempotencyKey)
			})
		}
		caption = ""
	}
	for i, f := range msg.Files {
		c := ""
		if i == 0 {
			c = caption
		}
		steps = append(steps, func() error { return a.sendFile(ctx, x, recipientType, target, f, c, msg.IdempotencyKey) })
	}
	pieces := make([]string, len(steps))
	return a.p.SendPieces(msg.IdempotencyKey, pieces, func(i int, _ string) error { return steps[i]() })
}

// sendFile uploads one file and sends it as a message of its type.
func (a *Adapter) sendFile(ctx context.Context, x *acct, recipientType, target string, f attachments.File, caption, idem string) error {
	t := attachments.TypeOf(f)
	body, ct := channels.MultipartForm([]string{"messaging_product", "whatsapp", "type", t},
		channels.FormFile{Field: "file", Name: f.Name, Type: t, Data: f.Data})
	var up struct {
		ID string `json:"id"`
	}
	if err := a.graphBody(ctx, x, http.MethodPost, "/"+x.cfg.PhoneNumberID+"/media", ct, body, uploadTimeout, &up); err != nil {
		return err
	}
	if up.ID == "" {
		return fmt.Errorf("whatsapp: the media upload of %q answered no id", f.Name)
	}
	kind, _ := mediaKind(t)
	media := map[string]any{"id": up.ID}
	if caption != "" && kind != "audio" {
		media["caption"] = caption
	}
	if kind == "document" {
		media["filename"] = f.Name
	}
	return a.message(ctx, x, recipientType, target, kind, media, idem)
}

// message sends one Cloud API message of type kind with its object.
func (a *Adapter) message(ctx context.Context, x *acct, recipientType, target, kind string, obj map[string]any, idem string) error {
	body := map[string]any{"messaging_product": "whatsapp", "recipient_type": recipientType, "to": target, "type": kind, kind: obj}
	var out struct {
		Messages []struct {
			ID string `json:"id"`
		} `json:"messages"`
	}
	if err := a.graph(ctx, x, http.MethodPost, "/"+x.cfg.PhoneNumberID+"/messages", body, &out); err != nil {
		return err
	}
	if len(out.Messages) > 0 {
		a.p.Log.Debug("whatsapp message sent", "account", x.id, "message", out.Messages[0].ID, "type", kind, "delivery", idem)
	}
	return nil
}
