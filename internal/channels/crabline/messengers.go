package crabline

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// SignalSends returns the params of the `send` calls the Signal server
// accepted.
func (s *Server) SignalSends(t testing.TB) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, call := range s.Calls(t, func(c Call) bool { return c.Accepted && c.Path == "/api/v1/rpc" }) {
		if call.Body["method"] == "send" {
			p, _ := call.Body["params"].(map[string]any)
			out = append(out, p)
		}
	}
	return out
}

// SignalSent counts the accepted sends whose param key ("recipient", its
// one entry, or "groupId") is value and whose message contains text.
func (s *Server) SignalSent(t testing.TB, key, value, text string) int {
	t.Helper()
	n := 0
	for _, p := range s.SignalSends(t) {
		got := p[key]
		if l, ok := got.([]any); ok && len(l) == 1 {
			got = l[0]
		}
		if msg, _ := p["message"].(string); got == value && strings.Contains(msg, text) {
			n++
		}
	}
	return n
}

// CloudTexts returns the bodies of the text messages the WhatsApp server
// accepted for a number.
func (s *Server) CloudTexts(t testing.TB, to string) []string {
	t.Helper()
	var out []string
	for _, call := range s.Calls(t, func(c Call) bool {
		return c.Accepted && strings.HasSuffix(c.Path, "/messages") && c.Body["to"] == to
	}) {
		if txt, ok := call.Body["text"].(map[string]any); ok {
			b, _ := txt["body"].(string)
			out = append(out, b)
		}
	}
	return out
}

// CloudSent counts the text messages to a number that contain text.
func (s *Server) CloudSent(t testing.TB, to, text string) int {
	t.Helper()
	n := 0
	for _, b := range s.CloudTexts(t, to) {
		if strings.Contains(b, text) {
			n++
		}
	}
	return n
}

// RelayWhatsApp injects a user message through the WhatsApp server's
// admin ingress, which never POSTs a webhook itself, and posts the Cloud
// API payload it answers to hook, signed by sign (the X-Hub-Signature-256
// value of a body). It returns the webhook's status and the payload.
func (s *Server) RelayWhatsApp(t testing.TB, hook string, sign func([]byte) string, msg map[string]any) (int, []byte) {
	t.Helper()
	var res struct {
		Webhook json.RawMessage `json:"webhook"`
	}
	if err := json.Unmarshal(s.InjectResult(t, msg), &res); err != nil || len(res.Webhook) == 0 {
		t.Fatalf("crabline gave no webhook payload: %v", err)
	}
	return PostSigned(t, hook, sign, res.Webhook), res.Webhook
}

// PostSigned posts a webhook payload to hook with X-Hub-Signature-256
// sign(body) and returns the status.
func PostSigned(t testing.TB, hook string, sign func([]byte) string, body []byte) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, hook, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Hub-Signature-256", sign(body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
