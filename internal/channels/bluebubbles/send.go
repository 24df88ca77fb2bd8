package bluebubbles

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// Send delivers an outbound message to a chat, as plain text (iMessage
// has no formatting markup) split at textChunkLimit.
func (a *Adapter) Send(ctx context.Context, msg channels.Outbound) error {
	x := a.account(msg.AccountID)
	if x == nil {
		return outbox.Permanent(fmt.Errorf("bluebubbles: no account %q", msg.AccountID))
	}
	if x.problem != "" {
		return fmt.Errorf("bluebubbles account %s: %s", x.id, x.problem)
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

// chatGUID reads a recipient: "bluebubbles:chat_guid:<guid>", or a
// handle ("bluebubbles:+15551234567", "imessage:ada@example.com"), whose
// direct chat is "iMessage;-;<handle>".
func chatGUID(to string) (string, error) {
	s := strings.TrimSpace(to)
	for _, p := range []string{Channel + ":", "imessage:"} {
		s = strings.TrimPrefix(s, p)
	}
	if g, ok := strings.CutPrefix(s, "chat_guid:"); ok {
		s = g
	} else if s != "" && !strings.Contains(s, ";") {
		s = "iMessage;-;" + normalizeHandle(s)
	}
	if strings.TrimSpace(s) == "" {
		return "", fmt.Errorf("bluebubbles: recipient %q names no chat", to)
	}
	return s, nil
}

// send sends text piece by piece; a retried delivery (same idem) resumes
// after the pieces the server already took. Each piece's tempGuid is the
// delivery's key and the piece's index.
func (a *Adapter) send(ctx context.Context, x *acct, to, text, idem string) error {
	guid, err := chatGUID(to)
	if err != nil {
		return outbox.Permanent(err)
	}
	pieces := a.pieces(x, text)
	return a.p.SendPieces(idem, pieces, func(i int, piece string) error {
		return a.sendText(ctx, x, guid, tempGUID(idem, i), piece)
	})
}

// pieces is text as plain text split at textChunkLimit.
func (a *Adapter) pieces(x *acct, text string) []string {
	plain, _ := channels.MarkdownSpans(text)
	limit := x.cfg.TextChunkLimit
	if limit <= 0 {
		limit = DefaultTextLimit
	}
	return channels.SplitText(plain, limit)
}

// sendText sends one text message (POST /api/v1/message/text).
func (a *Adapter) sendText(ctx context.Context, x *acct, guid, temp, text string) error {
	body := map[string]any{"chatGuid": guid, "tempGuid": temp, "message": text}
	return a.rest(ctx, x, http.MethodPost, "/api/v1/message/text", body)
}

// tempGUID is the tempGuid of a delivery's i-th message: the delivery's
// key and the index, so the server can tell a retried message.
func tempGUID(idem string, i int) string {
	if idem == "" {
		return fmt.Sprintf("switchboard-%d-%d", time.Now().UnixNano(), i)
	}
	return idem + "#" + strconv.Itoa(i)
}

// apiAnswer is BlueBubbles' answer envelope.
type apiAnswer struct {
	Status  int    `json:"status"`
	Message string `json:"message"`
	Error   *struct {
		Type  string `json:"type"`
		Error string `json:"error"`
	} `json:"error"`
}

// rest calls the server's REST API with the password. A transport
// failure, a 5xx or a 429 is retried (a 429's Retry-After honoured);
// another refusal is permanent.
func (a *Adapter) rest(ctx context.Context, x *acct, method, path string, body any) error {
	var raw []byte
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return outbox.Permanent(err)
		}
		raw = b
	}
	return a.restBody(ctx, x, method, path, "application/json", raw, 30*time.Second)
}

// restBody is rest with a body of its own type (nil: none) and a
// deadline (an upload takes longer than a text).
func (a *Adapter) restBody(ctx context.Context, x *acct, method, path, contentType string, body []byte, timeout time.Duration) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, method, x.server+path+"?password="+url.QueryEscape(x.password), rd)
	if err != nil {
		return outbox.Permanent(fmt.Errorf("bluebubbles: bad serverUrl"))
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := a.p.O.HTTPClient.Do(req)
	if err != nil {
		x.SetConnected(false)
		// the URL holds the password: name the path only
		if ue, ok := err.(*url.Error); ok {
			err = ue.Err
		}
		return fmt.Errorf("bluebubbles %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode == http.StatusOK {
		x.SetConnected(true)
		return nil
	}
	var ans apiAnswer
	_ = json.Unmarshal(raw, &ans)
	why := ans.Message
	if ans.Error != nil && ans.Error.Error != "" {
		why += ": " + ans.Error.Error
	}
	err = fmt.Errorf("bluebubbles %s %s: %s: %s", method, path, resp.Status, why)
	return channels.ClassifyHTTP(&x.Counters, resp.StatusCode, resp.Header, time.Minute, err)
}
