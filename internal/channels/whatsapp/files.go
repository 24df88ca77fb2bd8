package whatsapp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
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

// mediaInfo is the Graph API's answer to GET /<media-id>: a short-lived
// URL to download the file from with the same bearer token.
type mediaInfo struct {
	URL      string          `json:"url"`
	MimeType string          `json:"mime_type"`
	SHA256   string          `json:"sha256"`
	FileSize json.RawMessage `json:"file_size"`
}

// size is the file size the answer gives (a number or a numeric string),
// 0 when it gives none.
func (m mediaInfo) size() int64 {
	n, _ := strconv.ParseInt(strings.Trim(string(m.FileSize), `"`), 10, 64)
	return n
}

// downloadTimeout bounds one file's download.
const downloadTimeout = 60 * time.Second

// mediaExt names a received file that came without a name.
var mediaExt = map[string]string{"image/jpeg": ".jpg", "image/png": ".png", "image/webp": ".webp", "video/mp4": ".mp4",
	"video/3gpp": ".3gp", "audio/ogg": ".ogg", "audio/mpeg": ".mp3", "audio/mp4": ".m4a", "audio/aac": ".aac",
	"audio/amr": ".amr", "application/pdf": ".pdf", "text/plain": ".txt"}

// fetchMedia downloads a media message's file onto in: GET /<media-id>
// for its URL, then the URL with the bearer token, within the media
// limits. A file the limits or Meta refuse (gone, not the bytes the
// message named) becomes a note in in.Text; any other failure is
// returned, so the webhook asks Meta to deliver the message again. A
// file over the account's mediaMaxMb is not downloaded.
func (a *Adapter) fetchMedia(ctx context.Context, x *acct, ref *mediaRef, in *channels.Inbound) error {
	if ref == nil {
		return nil
	}
	med := channels.NewMedia(a.p.O.MediaLimits).WithCap(channels.MediaCap{MB: x.cfg.MediaMaxMb, Key: "channels.whatsapp.mediaMaxMb"})
	defer med.Apply(in)
	name := strings.TrimSpace(ref.Filename)
	if name == "" {
		name = ref.kind + "-" + ref.ID + mediaExt[ref.MimeType]
	}
	cctx, cancel := context.WithTimeout(ctx, downloadTimeout)
	defer cancel()
	var info mediaInfo
	err := a.graph(cctx, x, http.MethodGet, "/"+url.PathEscape(ref.ID), nil, &info)
	switch {
	case errors.Is(err, outbox.ErrPermanent):
		med.Refuse(name, channels.Refused(err))
		return nil
	case err != nil:
		return fmt.Errorf("whatsapp media %s: %w", ref.ID, err)
	case info.URL == "":
		med.Refuse(name, fmt.Errorf("%w: the Graph API gave no URL", channels.ErrMediaRefused))
		return nil
	}
	if err := med.Check(info.size()); err != nil {
		med.Refuse(name, err)
		return nil
	}
	room, err := med.Room()
	if err != nil {
		med.Refuse(name, err)
		return nil
	}
	data, err := channels.FetchWith(cctx, a.p.O.HTTPClient, info.URL, http.Header{"Authorization": {"Bearer " + x.token}}, room)
	if errors.Is(err, channels.ErrMediaRefused) {
		med.Refuse(name, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("whatsapp media %s: %w", ref.ID, err)
	}
	// Meta writes a file's hash in hex in one answer and base64 in others.
	want := ref.SHA256
	if want == "" {
		want = info.SHA256
	}
	if sum := sha256.Sum256(data); want != "" && !strings.EqualFold(want, hex.EncodeToString(sum[:])) &&
		want != base64.StdEncoding.EncodeToString(sum[:]) {
		med.Refuse(name, fmt.Errorf("%w: its bytes do not match its sha256", channels.ErrMediaRefused))
		return nil
	}
	mimeType := ref.MimeType
	if mimeType == "" {
		mimeType = info.MimeType
	}
	med.Add(name, mimeType, data)
	return nil
}
