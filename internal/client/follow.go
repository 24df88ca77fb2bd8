package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// followHandshake bounds the WebSocket handshake of Follow.
const followHandshake = 10 * time.Second

// Follow shows a run's reply as it arrives: it opens the gateway's
// WebSocket with the client's token, subscribes to the session's messages
// (sessions.messages.subscribe) and calls onText with the reply's text so
// far for each `chat` delta of runID, until the run's chat event ends it
// (nil) or ctx ends (ctx's error). Deltas sent before the subscription
// took hold are not replayed, but each delta carries the whole text so
// far, so the next one makes up for them. It is a display aid: the reply
// itself is read from the store (WaitRun).
func (c *Client) Follow(ctx context.Context, key, runID string, onText func(text string)) error {
	if c.err != nil {
		return c.err
	}
	u := *c.base
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	u.Path = strings.TrimRight(c.base.Path, "/") + "/"
	ws, _, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{HTTPClient: c.hc})
	if err != nil {
		return fmt.Errorf("client: follow %s: %w", key, err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(maxResponse)

	type frame struct {
		Type    string          `json:"type"`
		ID      string          `json:"id"`
		OK      bool            `json:"ok"`
		Event   string          `json:"event"`
		Payload json.RawMessage `json:"payload"`
		Error   *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	read := func() (frame, error) {
		var f frame
		_, data, err := ws.Read(ctx)
		if err != nil {
			return f, err
		}
		return f, json.Unmarshal(data, &f)
	}
	call := func(id, method string, params any) error {
		b, _ := json.Marshal(map[string]any{"type": "req", "id": id, "method": method, "params": params})
		hctx, cancel := context.WithTimeout(ctx, followHandshake)
		defer cancel()
		if err := ws.Write(hctx, websocket.MessageText, b); err != nil {
			return err
		}
		for {
			f, err := read()
			if err != nil {
				return err
			}
			if f.Type == "res" && f.ID == id {
				if !f.OK {
					msg := "refused"
					if f.Error != nil {
						msg = f.Error.Message
					}
					return fmt.Errorf("client: %s: %s", method, msg)
				}
				return nil
			}
		}
	}
	if _, err := read(); err != nil { // connect.challenge
		return fmt.Errorf("client: follow %s: %w", key, err)
	}
	connect := map[string]any{"minProtocol": 3, "maxProtocol": 4, "role": "operator",
		"client": map[string]any{"id": "cli", "version": "switchboard", "mode": "cli", "platform": "go"},
		"scopes": []string{"operator.read"}}
	if c.token != "" {
		connect["auth"] = map[string]any{"token": c.token}
	}
	if err := call("c", "connect", connect); err != nil {
		return err
	}
	if err := call("s", "sessions.messages.subscribe", map[string]any{"key": key}); err != nil {
		return err
	}
	// A run that ended before the subscription took hold sends nothing
	// more: the caller prints the stored reply.
	if r, err := c.GetRun(ctx, api.Principal{}, runID); err == nil && domain.RunTerminal(r.Status) {
		return nil
	}
	for {
		f, err := read()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("client: follow %s: %w", key, err)
		}
		if f.Type != "event" || f.Event != "chat" {
			continue
		}
		var p struct {
			RunID   string `json:"runId"`
			State   string `json:"state"`
			Message struct {
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(f.Payload, &p) != nil || p.RunID != runID {
			continue
		}
		if p.State != "delta" {
			return nil
		}
		var b strings.Builder
		for _, blk := range p.Message.Content {
			if blk.Type == "text" {
				b.WriteString(blk.Text)
			}
		}
		onText(b.String())
	}
}
