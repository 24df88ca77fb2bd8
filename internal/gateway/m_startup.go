package gateway

import "context"

// mChatStartup is OpenClaw's first history load of a chat pane (its
// Control UI calls it when a session opens). With a sessionKey it is
// chat.history; the other form names a session by OpenClaw's short id,
// which switchboard does not have, so it answers as OpenClaw does for an
// id it cannot find: resolution ok false, which the UI shows as a session
// that is not there.
func (s *Server) mChatStartup(ctx context.Context, cl *call) (any, error) {
	var p struct {
		SessionKey *string `json:"sessionKey"`
	}
	if err := decodeParams(cl.method, cl.params, &p); err != nil {
		return nil, err
	}
	if p.SessionKey == nil {
		return map[string]any{"resolution": map[string]any{"ok": false}}, nil
	}
	return s.mChatHistory(ctx, cl)
}
