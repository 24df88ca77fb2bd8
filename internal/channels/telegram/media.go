package telegram

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// hasMedia reports a message carrying a photo or a document, the media
// the adapter takes in.
func hasMedia(m *models.Message) bool {
	return m != nil && (len(m.Photo) > 0 || m.Document != nil)
}

// fetchMedia downloads a message's photo (the largest size within the
// limits) and document through getFile and the Bot API's file URL
// (<apiRoot>/file/bot<token>/<file_path>) and puts them on in. A file
// the limits or Telegram refuse becomes a note in in.Text; any other
// failure is returned, so the update is offered again. A file over the
// account's mediaMaxMb is not downloaded, and the returned reply (else
// "") tells the sender so.
func (a *Adapter) fetchMedia(ctx context.Context, x *acct, m *models.Message, in *channels.Inbound) (string, error) {
	if !hasMedia(m) {
		return "", nil
	}
	med := channels.NewMedia(a.o.MediaLimits).WithCap(channels.MediaCap{MB: x.cfg.MediaMaxMb, Key: "channels.telegram.mediaMaxMb"})
	if len(m.Photo) > 0 {
		name := "photo-" + channels.SafeFileName(m.Photo[len(m.Photo)-1].FileUniqueID) + ".jpg"
		if err := a.fetchOne(ctx, x, med, photoSize(med, m.Photo), name, "image/jpeg"); err != nil {
			return "", err
		}
	}
	if d := m.Document; d != nil {
		name := d.FileName
		if name == "" {
			name = "document-" + d.FileUniqueID
		}
		if err := a.fetchOne(ctx, x, med, fileRef{id: d.FileID, size: d.FileSize}, name, d.MimeType); err != nil {
			return "", err
		}
	}
	med.Apply(in)
	return med.OversizeReply(), nil
}

// fileRef is a Telegram file id and the size the message gave for it.
type fileRef struct {
	id   string
	size int64
}

// photoSize picks the largest size of a photo that fits the room left
// (Telegram lists the sizes smallest first), else the smallest.
func photoSize(med *channels.Media, sizes []models.PhotoSize) fileRef {
	room, _ := med.Room()
	for i := len(sizes) - 1; i >= 0; i-- {
		if int64(sizes[i].FileSize) <= room {
			return fileRef{id: sizes[i].FileID, size: int64(sizes[i].FileSize)}
		}
	}
	return fileRef{id: sizes[0].FileID, size: int64(sizes[0].FileSize)}
}

// fetchOne downloads one file into med, or notes why not.
func (a *Adapter) fetchOne(ctx context.Context, x *acct, med *channels.Media, ref fileRef, name, mimeType string) error {
	if err := med.Check(ref.size); err != nil {
		med.Refuse(name, err)
		return nil
	}
	room, _ := med.Room()
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	f, err := x.bot.GetFile(cctx, &bot.GetFileParams{FileID: ref.id})
	switch {
	case errors.Is(err, bot.ErrorBadRequest), errors.Is(err, bot.ErrorNotFound):
		// "file is too big" (over the Bot API's download limit), or gone.
		med.Refuse(name, fmt.Errorf("%w: telegram getFile: %v", channels.ErrMediaRefused, err))
		return nil
	case err != nil:
		return fmt.Errorf("telegram getFile: %w", err)
	case f.FilePath == "":
		med.Refuse(name, fmt.Errorf("%w: telegram gave no file_path", channels.ErrMediaRefused))
		return nil
	}
	if err := med.Check(f.FileSize); err != nil {
		med.Refuse(name, err)
		return nil
	}
	data, err := channels.Fetch(cctx, x.http, x.bot.FileDownloadLink(f), room)
	if errors.Is(err, channels.ErrMediaRefused) {
		med.Refuse(name, err)
		return nil
	}
	if err != nil {
		return fmt.Errorf("telegram file: %w", err)
	}
	med.Add(name, mimeType, data)
	return nil
}
