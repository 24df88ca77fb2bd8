package signal

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// SendsFiles marks the adapter as one that sends files (channels.FileSender).
func (a *Adapter) SendsFiles() {}

// dataURIs are files in signal-cli's form for `send`'s attachments:
// data:<type>;filename=<name>;base64,<data>. A ';' or ',' in a name would
// end its field, so it becomes '_'.
func dataURIs(files []attachments.File) []string {
	var out []string
	for _, f := range files {
		name := strings.NewReplacer(";", "_", ",", "_").Replace(f.Name)
		out = append(out, "data:"+attachments.TypeOf(f)+";filename="+name+";base64,"+base64.StdEncoding.EncodeToString(f.Data))
	}
	return out
}

// fetchMedia fetches a received message's attachments onto in with the
// daemon's JSON-RPC getAttachment (base64 in its answer's data), within
// the media limits; one the limits or the daemon refuse becomes a note
// in in.Text. Any other failure is returned and the fetch is tried again.
// done skips it (an earlier try took the files). A file over the
// account's mediaMaxMb is not fetched.
func (a *Adapter) fetchMedia(ctx context.Context, x *acct, atts []attachment, in *channels.Inbound, done bool) error {
	if done || len(atts) == 0 {
		return nil
	}
	med := channels.NewMedia(a.p.O.MediaLimits).WithCap(channels.MediaCap{MB: x.cfg.MediaMaxMb, Key: "channels.signal.mediaMaxMb"})
	for _, at := range atts {
		name := at.Filename
		if strings.TrimSpace(name) == "" {
			name = at.ID
		}
		if err := med.Check(at.Size); err != nil {
			med.Refuse(name, err)
			continue
		}
		room, err := med.Room()
		if err != nil {
			med.Refuse(name, err)
			continue
		}
		params := map[string]any{"id": at.ID}
		if in.ChatType == channels.ChatGroup {
			params["groupId"] = in.ChatID
		} else {
			params["recipient"] = in.SenderID
		}
		if x.cfg.Account != "" {
			params["account"] = x.cfg.Account
		}
		var res struct {
			Data string `json:"data"`
		}
		// base64 is 4 bytes for 3, and the answer has its envelope.
		err = a.rpcResult(ctx, x, "getAttachment", params, "attachment:"+at.ID, room/3*4+4+1024, &res)
		switch {
		case errors.Is(err, errAnswerTooLarge):
			med.Refuse(name, fmt.Errorf("%w: over the %d bytes allowed", channels.ErrMediaRefused, room))
			continue
		case errors.Is(err, outbox.ErrPermanent):
			// the daemon does not have it (run with --ignore-attachments,
			// or gone) or does not know getAttachment
			med.Refuse(name, channels.Refused(err))
			continue
		case err != nil:
			return fmt.Errorf("signal attachment %s: %w", at.ID, err)
		}
		data, err := base64.StdEncoding.DecodeString(res.Data)
		if err != nil || len(data) == 0 {
			med.Refuse(name, fmt.Errorf("%w: getAttachment gave no base64 data", channels.ErrMediaRefused))
			continue
		}
		if int64(len(data)) > room {
			med.Refuse(name, fmt.Errorf("%w: %d bytes, over the %d bytes allowed", channels.ErrMediaRefused, len(data), room))
			continue
		}
		med.Add(name, at.ContentType, data)
	}
	med.Apply(in)
	return nil
}
