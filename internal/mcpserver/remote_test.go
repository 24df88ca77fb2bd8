package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/client"
	"github.com/switchboard-go/switchboard/internal/engine"
)

// fakeGateway serves POST /api/tools/{name} over an engine the way the
// gateway does (requester from X-Switchboard-As), and refuses the token
// "revoked" with the gateway's error shape.
func fakeGateway(t *testing.T, e *engine.Engine) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/tools/{name}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Header.Get("Authorization") == "Bearer revoked" {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `{"error":{"code":"forbidden","message":"token revoked"}}`)
			return
		}
		args, _ := io.ReadAll(r.Body)
		out := e.CallTool(r.Context(), api.Operator().ActingAs(r.Header.Get("X-Switchboard-As")), r.PathValue("name"), args)
		json.NewEncoder(w).Encode(map[string]any{"isError": out.IsError, "result": out.Payload})
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

func TestRemoteCaller(t *testing.T) {
	e := newEngine(t, "tree")
	chat(t, e, "agent:main:alice", "hi")
	gw := fakeGateway(t, e)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	remote := RemoteCaller{Client: client.New(gw.URL, "tok", hc)}
	cs := connectStdio(t, New(remote, Options{}), operatorAs("agent:main:alice"))

	res, p := call(t, cs, api.ToolSessionsList, nil)
	if got := keys(t, p); res.IsError || len(got) != 1 || got[0] != "agent:main:alice" {
		t.Errorf("sessions_list through the gateway: isError=%v keys=%v, want alice's session", res.IsError, got)
	}
	res, p = call(t, cs, api.ToolSessionsHistory, map[string]any{"sessionKey": "agent:main:main"})
	if !res.IsError || p["status"] != "forbidden" {
		t.Errorf("forbidden through the gateway: isError=%v payload=%v", res.IsError, p)
	}
	res, p = call(t, cs, api.ToolSessionsList, map[string]any{"limit": "x"})
	if !res.IsError || !strings.Contains(p["error"].(string), "limit must be a number") {
		t.Errorf("invalid arguments through the gateway: isError=%v payload=%v", res.IsError, p)
	}

	// _meta.idempotencyKey reaches the engine as the tool's argument.
	send := map[string]any{"sessionKey": "current", "message": "once", "timeoutSeconds": 0}
	_, a := callMeta(t, cs, api.ToolSessionsSend, send, mcp.Meta{"idempotencyKey": "remote-1"})
	_, b := callMeta(t, cs, api.ToolSessionsSend, send, mcp.Meta{"idempotencyKey": "remote-1"})
	if a["runId"] == nil || a["runId"] != b["runId"] {
		t.Errorf("retried send with one _meta.idempotencyKey: runs %v and %v, want one", a["runId"], b["runId"])
	}
}

func TestRemoteCallerErrors(t *testing.T) {
	e := newEngine(t, "tree")
	gw := fakeGateway(t, e)
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}

	for _, tc := range []struct {
		name   string
		rc     RemoteCaller
		status string
		want   string
	}{
		{"gateway refuses", RemoteCaller{Client: client.New(gw.URL, "revoked", hc)}, "forbidden", "token revoked"},
		{"gateway down", RemoteCaller{Client: client.New(downURL, "", hc)}, "error", "does not answer"},
		{"no client", RemoteCaller{}, "error", "no gateway client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.rc.CallTool(context.Background(), api.Operator(), api.ToolSessionsList, nil)
			res := toResult(out)
			p := payload(t, res)
			if !res.IsError || p["status"] != tc.status || !strings.Contains(p["error"].(string), tc.want) {
				t.Fatalf("isError=%v payload=%v, want status %s and %q", res.IsError, p, tc.status, tc.want)
			}
		})
	}
}

func TestWithArgument(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{``, `{"idempotencyKey":"k"}`},
		{`null`, `{"idempotencyKey":"k"}`},
		{`{"message":"m"}`, `{"idempotencyKey":"k","message":"m"}`},
		{`{"idempotencyKey":"mine"}`, `{"idempotencyKey":"mine"}`},
		{`{"idempotency_key":"mine"}`, `{"idempotency_key":"mine"}`},
		{`[1]`, `[1]`},
		{`{bad`, `{bad`},
	} {
		if got := string(withArgument(json.RawMessage(tc.in), "idempotencyKey", "idempotency_key", "k")); got != tc.want {
			t.Errorf("withArgument(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
