package whatsapp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Send delivers an outbound message to a chat, split at the Cloud API's
// length limit, with Markdown turned into WhatsApp's formatting.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) error {
	x := a.account(msg.AccountID)
	if x == nil {
		return outbox.Permanent(fmt.Errorf("whatsapp: no account %q", msg.AccountID))
	}
	if x.problem != "" {
		return fmt.Errorf("whatsapp account %s: %s", x.id, x.problem)
	}
	var err error
	if len(msg.Files) > 0 {
		err = a.sendFiles(ctx, x, msg)
	} else {
		err = a.send(ctx, x, msg.To, msg.Text, msg.IdempotencyKey)
	}
	x.Sent(err, time.Now())
	return err
}

// send sends text to "whatsapp:+<number>" (or "whatsapp:group:<id>"),
// piece by piece; a retried delivery (same idem) resumes after the pieces
// the Cloud API already took.
func (a *Adapter) send(ctx context.Context, x *acct, to, text, idem string) error {
	recipientType, target, err := recipient(to)
	if err != nil {
		return err
	}
	limit := x.cfg.TextChunkLimit
	if limit <= 0 || limit > DefaultTextLimit {
		limit = DefaultTextLimit
	}
	pieces := channels.SplitText(toWhatsApp(text), limit)
	return a.p.SendPieces(idem, pieces, func(_ int, piece string) error {
		return a.message(ctx, x, recipientType, target, "text", map[string]any{"body": piece, "preview_url": false}, idem)
	})
}

// recipient reads "whatsapp:+<number>" (or a WhatsApp Web JID, which
// names the same number) or "whatsapp:group:<id>" into the Cloud API's
// recipient_type and to; a malformed one is a permanent error.
func recipient(to string) (recipientType, target string, err error) {
	target = strings.TrimPrefix(strings.TrimSpace(to), Channel+":")
	if g, ok := strings.CutPrefix(target, "group:"); ok {
		return "group", g, nil
	}
	target = strings.TrimSuffix(strings.TrimPrefix(target, "+"), "@s.whatsapp.net")
	if target == "" || strings.Trim(target, "0123456789") != "" {
		return "", "", outbox.Permanent(fmt.Errorf("whatsapp: recipient %q is no phone number (want whatsapp:+<number>)", to))
	}
	return "individual", target, nil
}

// whatsappMarks are WhatsApp's formatting markers.
var whatsappMarks = map[string]string{channels.StyleBold: "*", channels.StyleItalic: "_",
	channels.StyleStrike: "~", channels.StyleCode: "```"}

// toWhatsApp turns Markdown into WhatsApp's formatting.
func toWhatsApp(md string) string {
	plain, spans := channels.MarkdownSpans(md)
	var b strings.Builder
	at := 0
	for _, s := range spans {
		m := whatsappMarks[s.Style]
		b.WriteString(plain[at:s.Start])
		b.WriteString(m + plain[s.Start:s.End] + m)
		at = s.End
	}
	b.WriteString(plain[at:])
	return b.String()
}

// graphError is the Graph API's error body.
type graphError struct {
	Error struct {
		Code    int    `json:"code"`
		Subcode int    `json:"error_subcode"`
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// Rate-limit waits: Meta names no time. A pair rate limit (one number
// messaged too often) passes in seconds, the others in minutes.
const (
	pairLimitWait  = 6 * time.Second
	otherLimitWait = time.Minute
)

// graph calls the Graph API. Rate limits come back as
// *channels.RetryAfterError; a refused token or a refused message is
// permanent; a transport failure or a 5xx is retried.
func (a *Adapter) graph(ctx context.Context, x *acct, method, path string, body, out any) error {
	var raw []byte
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return outbox.Permanent(err)
		}
		raw = b
	}
	return a.graphBody(ctx, x, method, path, "application/json", raw, 30*time.Second, out)
}

// graphBody is graph with a body of its own type (nil: none) and a
// deadline (an upload takes longer than a message).
func (a *Adapter) graphBody(ctx context.Context, x *acct, method, path, contentType string, body []byte, timeout time.Duration, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, method, x.apiRoot+path, rd)
	if err != nil {
		return outbox.Permanent(fmt.Errorf("whatsapp: bad apiRoot: %w", err))
	}
	req.Header.Set("Authorization", "Bearer "+x.token)
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.p.O.HTTPClient.Do(req)
	if err != nil {
		x.SetConnected(false)
		return fmt.Errorf("whatsapp %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusOK {
		x.SetConnected(true)
		if out != nil {
			if err := json.Unmarshal(raw, out); err != nil {
				return fmt.Errorf("whatsapp %s %s: answer does not decode: %w", method, path, err)
			}
		}
		return nil
	}
	var ge graphError
	_ = json.Unmarshal(raw, &ge)
	e := ge.Error
	err = fmt.Errorf("whatsapp %s %s: %s: %s (code %d)", method, path, resp.Status, e.Message, e.Code)
	switch {
	case e.Code == 131056:
		return &channels.RetryAfterError{After: pairLimitWait, Err: err}
	case e.Code == 4 || e.Code == 80007 || e.Code == 130429 || e.Code == 131048:
		return &channels.RetryAfterError{After: otherLimitWait, Err: err}
	default:
		return channels.ClassifyHTTP(&x.Counters, resp.StatusCode, resp.Header, otherLimitWait, err)
	}
}
