package signal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
	"github.com/switchboard-go/switchboard/internal/outbox"
)

// rateLimitWait is how long a rate-limited send waits when signal-cli
// names no time (Signal's server rate limits last minutes).
const rateLimitWait = time.Minute

// rpcError is a JSON-RPC error of the daemon.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// send sends text to a recipient ("signal:+<number>", "signal:<uuid>",
// "signal:group:<groupId>"), piece by piece, with attach (files as
// signal-cli's data URIs) on the last piece; a retried delivery (same
// idem) resumes after the pieces Signal already took.
func (a *Adapter) send(ctx context.Context, x *acct, to, text, idem string, attach ...string) error {
	params, err := recipient(to)
	if err != nil {
		return outbox.Permanent(err)
	}
	if x.cfg.Account != "" {
		params["account"] = x.cfg.Account
	}
	limit := x.cfg.TextChunkLimit
	if limit <= 0 {
		limit = DefaultTextLimit
	}
	pieces := channels.SplitText(text, limit)
	return a.p.SendPieces(idem, pieces, func(i int, piece string) error {
		plain, styles := textStyles(piece)
		params["message"] = plain
		if len(styles) > 0 {
			params["textStyle"] = styles
		} else {
			delete(params, "textStyle")
		}
		if i == len(pieces)-1 && len(attach) > 0 {
			params["attachments"] = attach
			if plain == "" {
				delete(params, "message")
			}
		}
		return a.rpc(ctx, x, "send", params, fmt.Sprintf("%s#%d", idem, i))
	})
}

// recipient reads a recipient into send's params.
func recipient(to string) (map[string]any, error) {
	s := strings.TrimSpace(to)
	s = strings.TrimPrefix(s, Channel+":")
	if g, ok := strings.CutPrefix(s, "group:"); ok {
		if strings.TrimSpace(g) == "" {
			return nil, fmt.Errorf("signal: recipient %q has no group id", to)
		}
		return map[string]any{"groupId": strings.TrimSpace(g)}, nil
	}
	s = strings.TrimPrefix(s, "uuid:")
	if s == "" || strings.ContainsAny(s, " \t\n") {
		return nil, fmt.Errorf("signal: recipient %q is no number, uuid or group:<id>", to)
	}
	return map[string]any{"recipient": []string{s}}, nil
}

// rpc calls a daemon method. A transport failure or a 5xx is retried, a
// 429 waits; a JSON-RPC error is permanent unless it is a rate limit.
func (a *Adapter) rpc(ctx context.Context, x *acct, method string, params map[string]any, id string) error {
	return a.rpcResult(ctx, x, method, params, id, 1<<20, nil)
}

// errAnswerTooLarge is an answer over rpcResult's limit.
var errAnswerTooLarge = errors.New("answer over its size limit")

// rpcResult is rpc decoding the method's result into result (nil: not
// read); an answer over maxAnswer bytes is errAnswerTooLarge, permanent.
func (a *Adapter) rpcResult(ctx context.Context, x *acct, method string, params map[string]any, id string, maxAnswer int64, result any) error {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params, "id": id})
	if err != nil {
		return outbox.Permanent(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, http.MethodPost, x.base+"/api/v1/rpc", bytes.NewReader(body))
	if err != nil {
		return outbox.Permanent(fmt.Errorf("signal: bad httpUrl: %w", err))
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := a.p.O.HTTPClient.Do(req)
	if err != nil {
		x.SetConnected(false)
		return fmt.Errorf("signal %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return fmt.Errorf("signal %s: %w", method, err)
	}
	if int64(len(raw)) > maxAnswer {
		return outbox.Permanent(fmt.Errorf("signal %s: %w (%d bytes)", method, errAnswerTooLarge, maxAnswer))
	}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		return channels.ClassifyHTTP(&x.Counters, resp.StatusCode, resp.Header, rateLimitWait, fmt.Errorf("signal %s: %s", method, resp.Status))
	}
	var out struct {
		Error  *rpcError       `json:"error"`
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("signal %s: %s: answer does not decode: %w", method, resp.Status, err)
	}
	if e := out.Error; e != nil {
		err := fmt.Errorf("signal %s: %s (%d)", method, e.Message, e.Code)
		if isRateLimit(e) {
			return &channels.RetryAfterError{After: rateLimitWait, Err: err}
		}
		return outbox.Permanent(err)
	}
	if resp.StatusCode != http.StatusOK {
		return outbox.Permanent(fmt.Errorf("signal %s: %s", method, resp.Status))
	}
	x.SetConnected(true)
	if result != nil {
		if err := json.Unmarshal(out.Result, result); err != nil {
			return outbox.Permanent(fmt.Errorf("signal %s: result does not decode: %w", method, err))
		}
	}
	return nil
}

// isRateLimit reports signal-cli's rate-limit failure (its
// RateLimitException, error code -5).
func isRateLimit(e *rpcError) bool {
	return e.Code == -5 || strings.Contains(strings.ToLower(e.Message), "rate limit")
}
