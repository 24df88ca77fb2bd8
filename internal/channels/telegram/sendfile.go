package telegram

import (
	"bytes"
	"context"
	"time"

	"github.com/go-telegram/bot"
	"github.com/go-telegram/bot/models"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// maxCaptionUnits is Telegram's caption limit, in UTF-16 units.
const maxCaptionUnits = 1024

// uploadTimeout bounds one file's upload.
const uploadTimeout = 2 * time.Minute

// SendsFiles marks the adapter as one that sends files (channels.FileSender).
func (a *Adapter) SendsFiles() {}

// sendFiles sends a message's files: a JPEG or PNG as sendPhoto, anything
// else as sendDocument, the text as the first file's caption when it fits
// Telegram's caption limit and as messages before the files otherwise.
// Telegram has no idempotency key: a retry after a partial send sends the
// files that had gone once more.
func (a *Adapter) sendFiles(ctx context.Context, x *acct, msg channels.Outbound) error {
	chatID, thread, err := parseTo(msg.To)
	if err != nil {
		return outbox.Permanent(err)
	}
	caption := msg.Text
	if units(caption) > maxCaptionUnits {
		if err := a.sendText(ctx, x, msg.To, caption, true); err != nil {
			return err
		}
		caption = ""
	}
	for i, f := range msg.Files {
		c := ""
		if i == 0 {
			c = caption
		}
		if err := a.sendFile(ctx, x, chatID, thread, f, c); err != nil {
			return err
		}
	}
	return nil
}

// sendFile uploads one file with its caption (Markdown, sent as HTML, or
// plain when the HTML does not parse).
func (a *Adapter) sendFile(ctx context.Context, x *acct, chatID any, thread int, f attachments.File, caption string) error {
	html, mode := "", models.ParseMode("")
	if caption != "" {
		html, mode = toHTML(caption), models.ParseModeHTML
	}
	plain := func() bool {
		if mode == "" {
			return false
		}
		html, mode = caption, ""
		return true
	}
	switch attachments.ImageType(f.Data) {
	case "image/jpeg", "image/png":
		return a.try(ctx, x, "sendPhoto", uploadTimeout, func(ctx context.Context) error {
			_, err := x.bot.SendPhoto(ctx, &bot.SendPhotoParams{ChatID: chatID, MessageThreadID: thread, Caption: html, ParseMode: mode,
				Photo: &models.InputFileUpload{Filename: f.Name, Data: bytes.NewReader(f.Data)}})
			return err
		}, plain)
	}
	return a.try(ctx, x, "sendDocument", uploadTimeout, func(ctx context.Context) error {
		_, err := x.bot.SendDocument(ctx, &bot.SendDocumentParams{ChatID: chatID, MessageThreadID: thread, Caption: html, ParseMode: mode,
			Document: &models.InputFileUpload{Filename: f.Name, Data: bytes.NewReader(f.Data)}})
		return err
	}, plain)
}
