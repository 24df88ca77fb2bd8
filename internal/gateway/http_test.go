package gateway_test

import (
	"encoding/json"
	"fmt"
	"github.com/switchboard-go/switchboard/internal/api"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/gateway"
)

type apiError struct {
	OK    bool `json:"ok"`
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func TestHTTPAuth(t *testing.T) {
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "mcp session="+r.Header.Get(gateway.HeaderSession)+" scopes="+r.Header.Get(gateway.HeaderScopes))
	})
	e := newEnv(t, envOptions{token: "tok", tokens: []config.TokenBinding{{Token: "reader", Scopes: []string{"read"}, Session: "agent:work:main"}},
		opts: func(o *gateway.Options) { o.MCP = mcp }})
	tests := []struct {
		name, token, method, path string
		want                      int
	}{
		{"healthz needs no token", "", "GET", "/healthz", 200},
		{"api without token", "", "GET", "/api/sessions", 401},
		{"api with a wrong token", "nope", "GET", "/api/sessions", 401},
		{"metrics without token", "", "GET", "/metrics", 401},
		{"mcp without token", "", "POST", "/mcp", 401},
		{"api with token", "tok", "GET", "/api/sessions", 200},
		{"read token reads", "reader", "GET", "/api/agents", 200},
		{"read token cannot write", "reader", "POST", "/api/runs/x/cancel", 403},
		{"read token cannot reset", "reader", "POST", "/api/sessions/main/reset", 403},
		{"unknown api route", "tok", "GET", "/api/nothing", 404},
		{"web placeholder", "", "GET", "/", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body apiError
			var out any = &body
			if tt.want == 200 {
				out = nil
			}
			if got := e.doToken(t, tt.token, tt.method, tt.path, nil, out); got != tt.want {
				t.Fatalf("%s %s = %d, want %d", tt.method, tt.path, got, tt.want)
			}
			if tt.want != 200 && (body.OK || body.Error.Message == "") {
				t.Fatalf("error body = %+v", body)
			}
		})
	}

	req, _ := http.NewRequest("POST", e.url+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer reader")
	req.Header.Set(gateway.HeaderSession, "agent:main:spoofed")
	resp, err := e.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "mcp session=agent:work:main scopes=operator.read" {
		t.Fatalf("mcp saw %q", b)
	}

	// Each tool needs the scope of what it does: a read token lists
	// agents, and its send is an error result naming the missing scope.
	var out gateway.ToolResponse
	if code := e.doToken(t, "reader", "POST", "/api/tools/agents_list", "{}", &out); code != 200 || out.IsError {
		t.Fatalf("agents_list with read token = %d %+v", code, out)
	}
	out = gateway.ToolResponse{}
	if code := e.doToken(t, "reader", "POST", "/api/tools/sessions_send", `{"sessionKey":"agent:work:main","message":"x"}`, &out); code != 200 || !out.IsError || !strings.Contains(fmt.Sprint(out.Result), "missing scope") {
		t.Fatalf("sessions_send with read token = %d %+v", code, out)
	}
}

func TestHTTPAPI(t *testing.T) {
	e := newEnv(t, envOptions{token: "tok", rules: []config.ScriptRule{slowRule(5000)}, cfg: func(c *config.Config) {
		c.Agents.Defaults.Subagents.AllowAgents = []string{"work"}
	}})
	ctx := t.Context()

	// chat, waiting for the run.
	var chat gateway.ChatResponse
	if code := e.do(t, "POST", "/api/sessions/main/chat?wait=10s", map[string]any{"message": "hello api"}, &chat); code != 200 {
		t.Fatalf("chat = %d %+v", code, chat)
	}
	if chat.Run == nil || chat.Run.Status != domain.RunOK || chat.Run.Reply != "echo: hello api" || chat.SessionKey != "agent:main:main" {
		t.Fatalf("chat = %+v", chat)
	}

	var list api.ListResult
	if code := e.do(t, "GET", "/api/sessions?limit=10&messages=2", nil, &list); code != 200 || list.Count != 1 || len(list.Sessions[0].Messages) != 2 {
		t.Fatalf("list = %d %+v", code, list)
	}
	var bad apiError
	if code := e.do(t, "GET", "/api/sessions?limit=ten", nil, &bad); code != 400 || !strings.Contains(bad.Error.Message, "limit") || bad.Error.Code != domain.CodeInvalid {
		t.Fatalf("bad limit = %d %+v", code, bad)
	}
	// The tool's and WS sessions.list's parameter names, as well as the
	// older aliases (messages, agent).
	for _, tc := range []struct {
		query     string
		wantCount int
		wantMsgs  int
	}{
		{"messageLimit=2", 1, 2},
		{"messageLimit=1&agentId=MAIN", 1, 1},
		{"agentId=work", 0, 0},
		{"agent=main&messages=1", 1, 1},
		{"includeGlobal=true&includeUnknown=false", 1, 0}, // WS sessions.list's, ignored
	} {
		list = api.ListResult{}
		if code := e.do(t, "GET", "/api/sessions?"+tc.query, nil, &list); code != 200 || list.Count != tc.wantCount ||
			(tc.wantCount > 0 && len(list.Sessions[0].Messages) != tc.wantMsgs) {
			t.Errorf("list ?%s = %d %+v, want %d rows with %d messages", tc.query, code, list, tc.wantCount, tc.wantMsgs)
		}
	}
	for query, want := range map[string]string{
		"messageLimit=lots":          "invalid query parameter messageLimit: want a whole number",
		"messageLimit=-1":            "invalid query parameter messageLimit: messageLimit must be at least 0",
		"colour=red":                 "invalid query parameter colour: unknown (accepted: kinds, limit",
		"messages=1&messageLimit=2":  "invalid query parameter messages: give messageLimit or its alias messages, not both",
		"includeLastMessage=perhaps": "invalid query parameter includeLastMessage: want true or false",
		"includeGlobal=perhaps":      "invalid query parameter includeGlobal: want true or false",
	} {
		bad = apiError{}
		if code := e.do(t, "GET", "/api/sessions?"+query, nil, &bad); code != 400 || !strings.HasPrefix(bad.Error.Message, want) {
			t.Errorf("list ?%s = %d %q, want 400 %q", query, code, bad.Error.Message, want)
		}
	}

	var hist api.HistoryResult
	if code := e.do(t, "GET", "/api/sessions/agent:main:main/history?limit=1", nil, &hist); code != 200 || len(hist.Messages) != 1 || hist.Messages[0].Content.Text() != "echo: hello api" {
		t.Fatalf("history = %d %+v", code, hist)
	}
	if code := e.do(t, "GET", "/api/sessions/main/history?raw=true&as=agent:main:main", nil, &bad); code != 400 {
		t.Fatalf("raw history as a session = %d", code)
	}

	var sent api.SendResult
	if code := e.do(t, "POST", "/api/sessions/agent:work:main/send", map[string]any{"message": "ping", "timeoutSeconds": 10}, &sent); code != 200 {
		t.Fatalf("send = %d", code)
	}
	if sent.Status != "ok" || sent.Reply != "echo: ping" {
		t.Fatalf("send = %+v", sent)
	}
	if code := e.do(t, "POST", "/api/sessions/main/send", map[string]any{"message": "x", "bogus": 1}, &bad); code != 400 || !strings.Contains(bad.Error.Message, "bogus") {
		t.Fatalf("unknown body field = %d %+v", code, bad)
	}

	var sess domain.Session
	if code := e.do(t, "POST", "/api/sessions/main/patch", map[string]any{"label": "home", "sendPolicy": "deny"}, &sess); code != 200 || sess.Label != "home" || sess.SendPolicy != "deny" {
		t.Fatalf("patch = %d %+v", code, sess)
	}
	if code := e.do(t, "POST", "/api/sessions/main/chat", map[string]any{"message": "blocked?"}, &bad); code != 400 || bad.Error.Message != "send blocked by session policy" {
		t.Fatalf("chat to deny = %d %+v", code, bad)
	}
	sess = domain.Session{}
	if code := e.do(t, "POST", "/api/sessions/main/patch", map[string]any{"sendPolicy": nil}, &sess); code != 200 || sess.SendPolicy != "" || sess.Label != "home" {
		t.Fatalf("clear policy = %d %+v", code, sess)
	}
	old := sess.SessionID
	if code := e.do(t, "POST", "/api/sessions/main/reset", nil, &sess); code != 200 || sess.SessionID == old {
		t.Fatalf("reset = %d %+v", code, sess)
	}

	var spawned api.SpawnResult
	if code := e.do(t, "POST", "/api/spawn", map[string]any{"task": "slow task", "agentId": "work", "label": "bg"}, &spawned); code != 200 || spawned.Status != "accepted" {
		t.Fatalf("spawn = %d %+v", code, spawned)
	}
	if code := e.do(t, "POST", "/api/spawn", map[string]any{"task": "x", "agentId": "nobody-here"}, &bad); code != 403 && code != 400 {
		t.Fatalf("spawn unknown agent = %d %+v", code, bad)
	}

	var runs struct {
		Runs []domain.Run `json:"runs"`
	}
	// Other runs (an earlier send's announce step) may still be queued.
	if code := e.do(t, "GET", "/api/runs?status=queued,running", nil, &runs); code != 200 || !slices.ContainsFunc(runs.Runs, func(r domain.Run) bool { return r.ID == spawned.RunID }) {
		t.Fatalf("runs = %d %+v", code, runs)
	}
	for _, r := range runs.Runs {
		if r.Status != domain.RunQueued && r.Status != domain.RunRunning {
			t.Fatalf("status filter returned a %s run", r.Status)
		}
	}
	if code := e.do(t, "GET", "/api/runs?status=weird", nil, &bad); code != 400 {
		t.Fatalf("bad status = %d", code)
	}
	var run domain.Run
	if code := e.do(t, "GET", "/api/runs/"+spawned.RunID+"?wait=1ms", nil, &run); code != 200 || domain.RunTerminal(run.Status) {
		t.Fatalf("run wait = %d %+v", code, run)
	}
	if code := e.do(t, "POST", "/api/runs/"+spawned.RunID+"/cancel", nil, &run); code != 200 || run.ID != spawned.RunID {
		t.Fatalf("cancel = %d %+v", code, run)
	}
	if code := e.do(t, "GET", "/api/runs/"+spawned.RunID+"?wait=10s", nil, &run); code != 200 || run.Status != domain.RunCancelled {
		t.Fatalf("run after cancel = %d %+v", code, run)
	}
	if code := e.do(t, "GET", "/api/runs/nope", nil, &bad); code != 404 || bad.Error.Code != domain.CodeNotFound {
		t.Fatalf("missing run = %d %+v", code, bad)
	}

	var agents struct {
		Requester string `json:"requester"`
		Agents    []struct {
			ID string `json:"id"`
		} `json:"agents"`
	}
	if code := e.do(t, "GET", "/api/agents", nil, &agents); code != 200 || agents.Requester != "main" || len(agents.Agents) != 2 {
		t.Fatalf("agents = %d %+v", code, agents)
	}

	var tool gateway.ToolResponse
	if code := e.do(t, "POST", "/api/tools/sessions_history?as=main", map[string]any{"sessionKey": "main"}, &tool); code != 200 || tool.IsError {
		t.Fatalf("tool = %d %+v", code, tool)
	}
	if code := e.do(t, "POST", "/api/tools/sessions_history", map[string]any{"sessionKey": 5}, &tool); code != 200 || !tool.IsError {
		t.Fatalf("tool with bad args = %d %+v", code, tool)
	}

	if code := e.do(t, "DELETE", "/api/sessions/agent:work:main", nil, nil); code != 400 {
		t.Fatalf("delete main session of work = %d, want 400", code)
	}
	if code := e.do(t, "DELETE", "/api/sessions/"+spawned.ChildSessionKey, nil, nil); code != 200 {
		t.Fatalf("delete child = %d", code)
	}
	if _, err := e.eng.Session(ctx, spawned.ChildSessionKey); domain.ErrorCode(err) != domain.CodeNotFound {
		t.Fatalf("child still there: %v", err)
	}
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, envOptions{})
	w, _ := e.connect(t, nil)
	id := w.send("agent", map[string]any{"message": "count me", "idempotencyKey": "m1"})
	w.response(id)
	w.response(id)
	w.ok("sessions.list", nil, nil)

	resp, err := e.hc.Get(e.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(b)
	for _, want := range []string{
		`switchboard_ws_connections 1`,
		`switchboard_runs{status="queued"} 0`,
		`switchboard_runs{status="running"}`,
		`switchboard_outbox_items{status="pending"}`,
		`switchboard_outbox_items{status="failed"}`,
		`switchboard_lane_queue_depth`,
		`switchboard_active_runs`,
		`switchboard_outbox_passes_total`,
		`switchboard_store_latency_seconds_bucket{op="list_sessions"`,
		`switchboard_gateway_requests_total{code="OK",method="agent"} 1`,
		`switchboard_ws_connections_total 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if t.Failed() {
		t.Logf("metrics:\n%s", text)
	}
}

// HTTP chat takes the delivery hints WS `agent` takes (to, accountId,
// threadId as a string or a number) and refuses an unknown channel.
func TestHTTPChatDeliveryHintsAndChannel(t *testing.T) {
	e := newEnv(t, envOptions{token: "tok"})
	var chat gateway.ChatResponse
	if code := e.do(t, "POST", "/api/sessions/agent:main:telegram:group:7/chat?wait=10s", map[string]any{"message": "hi",
		"channel": "telegram", "to": "group:7", "accountId": "bot1", "threadId": 42}, &chat); code != 200 {
		t.Fatalf("chat = %d %+v", code, chat)
	}
	var row gateway.SessionRow
	if code := e.do(t, "GET", "/api/sessions/agent:main:telegram:group:7", nil, &row); code != 200 {
		t.Fatalf("get session = %d", code)
	}
	if row.DeliveryContext == nil || *row.DeliveryContext != (domain.DeliveryContext{Channel: "telegram", To: "group:7", AccountID: "bot1", ThreadID: "42"}) ||
		row.LastTo != "group:7" || row.LastAccountID != "bot1" {
		t.Errorf("row = %+v (deliveryContext %+v)", row, row.DeliveryContext)
	}
	var bad apiError
	if code := e.do(t, "POST", "/api/sessions/main/chat", map[string]any{"message": "x", "threadId": true}, &bad); code != 400 || !strings.Contains(bad.Error.Message, "threadId must be a string or a number") {
		t.Errorf("threadId true = %d %+v", code, bad)
	}
	// Body type errors name the field and the JSON type in words, never Go's.
	for body, want := range map[string]string{
		`{"message":"x","timeoutSeconds":"soon"}`: "invalid request body: timeoutSeconds must be a number (got a string)",
		`{"message":5}`:                       "invalid request body: message must be a string (got a number)",
		`{"message":"x","deliver":"yes"}`:     "invalid request body: deliver must be a boolean (got a string)",
		`{"message":"x","colour":"red"}`:      `invalid request body: unknown field "colour"`,
		`{"message":"x","idempotencyKey":""}`: "invalid chat params: idempotencyKey must not be empty (omit it to send without one)",
	} {
		if code := e.do(t, "POST", "/api/sessions/main/chat", json.RawMessage(body), &bad); code != 400 || bad.Error.Message != want {
			t.Errorf("body %s = %d %q, want %q", body, code, bad.Error.Message, want)
		}
	}
	if code := e.do(t, "POST", "/api/sessions/main/chat", map[string]any{"message": "x", "channel": "bogusnet"}, &bad); code != 400 || bad.Error.Message != "unknown channel: bogusnet" {
		t.Errorf("unknown channel = %d %+v", code, bad)
	}
}
