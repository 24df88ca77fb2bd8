package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

// a2aEnv is a gateway with a token and the A2A surface mounted, as
// `switchboard gateway` mounts it.
func a2aEnv(t testing.TB, rules ...config.ScriptRule) *env {
	t.Helper()
	var e *env
	e = newEnv(t, envOptions{token: "a2a-token", rules: rules, opts: func(o *gateway.Options) {
		o.A2A = a2a.New(a2a.Options{
			Service:   o.Engine.(a2a.Service),
			Agents:    func() []a2a.Agent { return []a2a.Agent{{ID: "main", Name: "Main", Public: true}, {ID: "work"}} },
			Principal: gateway.PrincipalOf,
			Version:   "test",
		})
	}})
	return e
}

func a2aSend(id string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": map[string]any{
		"message": map[string]any{"messageId": id, "role": "ROLE_USER", "parts": []any{map[string]any{"text": "bench"}}}}}
}

func TestA2AMounted(t *testing.T) {
	e := a2aEnv(t)
	// Cards are public.
	var card wire.AgentCard
	if st := e.doToken(t, "", http.MethodGet, "/.well-known/agent-card.json", nil, &card); st != http.StatusOK || card.Name != "Main" {
		t.Fatalf("card without token: %d %+v", st, card)
	}
	if card.SupportedInterfaces[0].URL != e.url+"/a2a/agents/main" {
		t.Errorf("card url = %s", card.SupportedInterfaces[0].URL)
	}
	// Another agent's card needs the token; without it (or with a wrong
	// one) it is not there.
	if st := e.doToken(t, "", http.MethodGet, "/a2a/agents/work/.well-known/agent-card.json", nil, nil); st != http.StatusNotFound {
		t.Errorf("work card without a token: %d, want 404", st)
	}
	if st := e.doToken(t, "wrong", http.MethodGet, "/a2a/agents/work/.well-known/agent-card.json", nil, nil); st != http.StatusNotFound {
		t.Errorf("work card with a wrong token: %d, want 404", st)
	}
	if st := e.do(t, http.MethodGet, "/a2a/agents/work/.well-known/agent-card.json", nil, &card); st != http.StatusOK || card.Name != "work" {
		t.Errorf("work card with the token: %d %+v", st, card)
	}
	// JSON-RPC needs the token.
	var resp wire.Response
	if st := e.doToken(t, "", http.MethodPost, "/a2a/agents/main", a2aSend("g-1"), nil); st != http.StatusUnauthorized {
		t.Errorf("no token: %d", st)
	}
	var refused wire.Response
	if st := e.doToken(t, "wrong", http.MethodPost, "/a2a/agents/main", a2aSend("g-1"), &refused); st != http.StatusUnauthorized ||
		refused.Error == nil || !strings.Contains(refused.Error.Message, "token mismatch") {
		t.Errorf("wrong token: %d %+v (want 401 with a JSON-RPC error)", st, refused.Error)
	}
	if st := e.do(t, http.MethodPost, "/a2a/agents/main", a2aSend("g-1"), &resp); st != http.StatusOK || resp.Error != nil {
		t.Fatalf("send: %d %+v", st, resp.Error)
	}
	var res wire.SendMessageResponse
	if err := json.Unmarshal(resp.Result, &res); err != nil || res.Task == nil || res.Task.Status.State != wire.TaskStateCompleted {
		t.Fatalf("send result = %s", resp.Result)
	}
	// The browser policy applies: a foreign Origin is refused.
	req, _ := http.NewRequest(http.MethodPost, e.url+"/a2a/agents/main", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer a2a-token")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "https://evil.example")
	r, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Origin: %d, want 403", r.StatusCode)
	}
}

// TestA2APolicyRefusalsAreJSONRPC: the gateway's browser policy refusals
// (foreign Origin, wrong Content-Type) on the A2A endpoint are JSON-RPC
// error bodies, which A2A clients parse, with the same HTTP status.
func TestA2APolicyRefusalsAreJSONRPC(t *testing.T) {
	e := a2aEnv(t)
	tests := []struct {
		name, origin, contentType string
		status                    int
		dataCode, contains        string
	}{
		{"foreign origin", "https://evil.example", "application/json", http.StatusForbidden, "forbidden", "cross-origin request"},
		{"text/plain body", "", "text/plain", http.StatusUnsupportedMediaType, "invalid", "Content-Type: application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, _ := json.Marshal(a2aSend("p-1"))
			req, _ := http.NewRequest(http.MethodPost, e.url+"/a2a/agents/main", strings.NewReader(string(body)))
			req.Header.Set("Authorization", "Bearer a2a-token")
			req.Header.Set("Content-Type", tt.contentType)
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			r, err := e.hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Body.Close()
			var resp wire.Response
			if err := json.NewDecoder(r.Body).Decode(&resp); err != nil {
				t.Fatalf("body is not JSON: %v", err)
			}
			if r.StatusCode != tt.status || resp.JSONRPC != "2.0" || resp.Error == nil || resp.Error.Code != wire.CodeInvalidRequest ||
				!strings.Contains(resp.Error.Message, tt.contains) || fmt.Sprint(resp.Error.Data) != fmt.Sprint(map[string]any{"code": tt.dataCode}) {
				t.Errorf("got %d %+v; want %d with a JSON-RPC error %d containing %q, data.code %q",
					r.StatusCode, resp.Error, tt.status, wire.CodeInvalidRequest, tt.contains, tt.dataCode)
			}
		})
	}
}

// TestA2AStreamEndsOnShutdown: an open SubscribeToTask stream does not
// hold the gateway's shutdown.
func TestA2AStreamEndsOnShutdown(t *testing.T) {
	e := a2aEnv(t, slowRule(60_000))
	var resp wire.Response
	body := a2aSend("slow-1")
	body["params"].(map[string]any)["message"].(map[string]any)["parts"] = []any{map[string]any{"text": "slow"}}
	body["params"].(map[string]any)["configuration"] = map[string]any{"returnImmediately": true}
	if st := e.do(t, http.MethodPost, "/a2a/agents/main", body, &resp); st != http.StatusOK || resp.Error != nil {
		t.Fatalf("send: %d %+v", st, resp.Error)
	}
	var res wire.SendMessageResponse
	_ = json.Unmarshal(resp.Result, &res)
	sub, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": map[string]any{"id": res.Task.ID}})
	req, _ := http.NewRequest(http.MethodPost, e.url+"/a2a/agents/main", strings.NewReader(string(sub)))
	req.Header.Set("Authorization", "Bearer a2a-token")
	req.Header.Set("Content-Type", "application/json")
	r, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	sc := bufio.NewScanner(r.Body)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "data: ") {
		t.Fatalf("no first event: %q", sc.Text())
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown with an open stream: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %s", d)
	}
	for sc.Scan() {
	}
}

// BenchmarkA2ASendMessage measures SendMessage (blocking: the answer is
// the completed task) over loopback HTTP through the gateway with the
// script model.
func BenchmarkA2ASendMessage(b *testing.B) {
	e := a2aEnv(b)
	var lat []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		var resp wire.Response
		if st := e.do(b, http.MethodPost, "/a2a/agents/main", a2aSend(fmt.Sprintf("b-%d", i)), &resp); st != http.StatusOK || resp.Error != nil {
			b.Fatalf("send: %d %+v", st, resp.Error)
		}
		lat = append(lat, time.Since(start))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
	}
}
