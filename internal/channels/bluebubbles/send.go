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
	err := a.send(ctx, x, msg.To, msg.Text, msg.IdempotencyKey)
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
	plain, _ := channels.MarkdownSpans(text)
	limit := x.cfg.TextChunkLimit
	if limit <= 0 {
		limit = DefaultTextLimit
	}
	pieces := channels.SplitText(plain, limit)
	return a.p.SendPieces(idem, pieces, func(i int, piece string) error {
		temp := fmt.Sprintf("switchboard-%d-%d", time.Now().UnixNano(), i)
		if idem != "" {
			temp = idem + "#" + strconv.Itoa(i)
		}
		body := map[string]any{"chatGuid": guid, "tempGuid": temp, "message": piece}
		return a.rest(ctx, x, http.MethodPost, "/api/v1/message/text", body)
	})
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
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return outbox.Permanent(err)
		}
		rd = bytes.NewReader(b)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, method, x.server+path+"?password="+url.QueryEscape(x.password), rd)
	if err != nil {
		return outbox.Permanent(fmt.Errorf("bluebubbles: bad serverUrl"))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
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
