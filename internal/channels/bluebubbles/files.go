package bluebubbles

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// uploadTimeout bounds one attachment's upload.
const uploadTimeout = 2 * time.Minute

// SendsFiles marks the adapter as one that sends files (channels.FileSender).
func (a *Adapter) SendsFiles() {}

// sendFiles sends a message's text (as text messages, iMessage has no
// captions) and then each file through POST /api/v1/message/attachment
// (multipart: chatGuid, tempGuid, name, attachment); the server's default
// send method applies. A retried delivery resumes after the messages the
// server already took.
func (a *Adapter) sendFiles(ctx context.Context, x *acct, msg channels.Outbound) error {
	guid, err := chatGUID(msg.To)
	if err != nil {
		return outbox.Permanent(err)
	}
	var steps []func(temp string) error
	if strings.TrimSpace(msg.Text) != "" {
		for _, piece := range a.pieces(x, msg.Text) {
			steps = append(steps, func(temp string) error { return a.sendText(ctx, x, guid, temp, piece) })
		}
	}
	for _, f := range msg.Files {
		steps = append(steps, func(temp string) error {
			t := attachments.TypeOf(f)
			body, ct := channels.MultipartForm([]string{"chatGuid", guid, "tempGuid", temp, "name", f.Name},
				channels.FormFile{Field: "attachment", Name: f.Name, Type: t, Data: f.Data})
			return a.restBody(ctx, x, http.MethodPost, "/api/v1/message/attachment", ct, body, uploadTimeout)
		})
	}
	return a.p.SendPieces(msg.IdempotencyKey, make([]string, len(steps)), func(i int, _ string) error {
		return steps[i](tempGUID(msg.IdempotencyKey, i))
	})
}

// downloadTimeout bounds one attachment's download.
const downloadTimeout = 60 * time.Second

// fetchMedia downloads a message's attachments (GET
// /api/v1/attachment/<guid>/download) onto in, within the media limits;
// one the limits or the server refuse becomes a note in in.Text. Any
// other failure is returned, so the webhook asks for the delivery again.
// A file over the account's mediaMaxMb is not downloaded.
func (a *Adapter) fetchMedia(ctx context.Context, x *acct, atts []attachment, in *channels.Inbound) error {
	if len(atts) == 0 {
		return nil
	}
	med := channels.NewMedia(a.p.O.MediaLimits).WithCap(channels.MediaCap{MB: x.cfg.MediaMaxMb, Key: "channels.bluebubbles.mediaMaxMb"})
	for _, at := range atts {
		name := at.TransferName
		if strings.TrimSpace(name) == "" {
			name = "attachment-" + at.GUID
		}
		if err := med.Check(at.TotalBytes); err != nil {
			med.Refuse(name, err)
			continue
		}
		room, err := med.Room()
		if err != nil {
			med.Refuse(name, err)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, downloadTimeout)
		u := x.server + "/api/v1/attachment/" + url.PathEscape(at.GUID) + "/download?password=" + url.QueryEscape(x.password)
		data, err := channels.Fetch(cctx, a.p.O.HTTPClient, u, room)
		cancel()
		if errors.Is(err, channels.ErrMediaRefused) {
			med.Refuse(name, err)
			continue
		}
		if err != nil {
			return fmt.Errorf("bluebubbles attachment %s: %w", at.GUID, err)
		}
		med.Add(name, at.MimeType, data)
	}
	med.Apply(in)
	return nil
}
