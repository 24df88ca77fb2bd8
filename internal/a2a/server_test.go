package a2a

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func getCard(t *testing.T, h *harness, path string, who ...string) (int, wire.AgentCard) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.srv.URL+path, nil)
	for _, w := range who {
		req.Header.Set("X-Test-Principal", w)
	}
	res, err := h.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var c wire.AgentCard
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode == http.StatusOK {
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("card: %v: %s", err, b)
		}
	}
	return res.StatusCode, c
}

func TestCards(t *testing.T) {
	h := newHarness(t)
	st, c := getCard(t, h, wire.CardPath)
	if st != http.StatusOK || c.Name != "Main" || c.Description != "the main agent" {
		t.Fatalf("default card: %d %+v", st, c)
	}
	want := h.srv.URL + AgentsPrefix + "main"
	if len(c.SupportedInterfaces) != 2 || c.SupportedInterfaces[0].URL != want ||
		c.SupportedInterfaces[0].ProtocolVersion != "1.0" || c.SupportedInterfaces[0].ProtocolBinding != "JSONRPC" ||
		c.SupportedInterfaces[1].ProtocolVersion != "0.3" {
		t.Errorf("supportedInterfaces = %+v", c.SupportedInterfaces)
	}
	if c.Capabilities.Streaming == nil || !*c.Capabilities.Streaming {
		t.Error("capabilities.streaming is not true")
	}
	if s := c.SecuritySchemes["bearer"]; s.HTTPAuth == nil || s.HTTPAuth.Scheme != "Bearer" || s.LegacyType != "http" {
		t.Errorf("securitySchemes = %+v", c.SecuritySchemes)
	}
	if len(c.SecurityRequirements) != 1 || c.SecurityRequirements[0].Schemes["bearer"].List == nil {
		t.Errorf("securityRequirements = %+v", c.SecurityRequirements)
	}
	if len(c.Skills) != 1 || c.Skills[0].ID != "qa" || c.Skills[0].Name != "Questions" {
		t.Errorf("skills = %+v", c.Skills)
	}
	if c.LegacyURL != want || c.LegacyProtocolVersion != "0.3.0" || c.Version != "test" {
		t.Errorf("0.3 fields: url %q protocolVersion %q version %q", c.LegacyURL, c.LegacyProtocolVersion, c.Version)
	}

	st, r := getCard(t, h, AgentsPrefix+"research"+wire.CardPath, "reader")
	if st != http.StatusOK || r.Name != "research" || r.SupportedInterfaces[0].URL != h.srv.URL+AgentsPrefix+"research" {
		t.Fatalf("research card: %d %+v", st, r)
	}
	if len(r.Skills) != 1 || r.Skills[0].ID != "chat" {
		t.Errorf("an agent without skills gets the chat skill: %+v", r.Skills)
	}
	if st, _ := getCard(t, h, AgentsPrefix+"ghost"+wire.CardPath); st != http.StatusNotFound {
		t.Errorf("card of an unexposed agent: %d, want 404", st)
	}
}

func TestSendMessageCompletes(t *testing.T) {
	h := newHarness(t)
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("m-1", "", "hello")})
	if r.resp.Error != nil {
		t.Fatalf("error: %+v", r.resp.Error)
	}
	res := decode[wire.SendMessageResponse](t, r.resp.Result)
	if res.Task == nil {
		t.Fatalf("no task: %s", r.resp.Result)
	}
	task := *res.Task
	if task.Status.State != wire.TaskStateCompleted || len(task.Artifacts) != 1 || textOf(task.Artifacts[0].Parts) != "echo: hello" {
		t.Fatalf("task = %+v", task)
	}
	if task.Status.Message == nil || task.Status.Message.Role != wire.RoleAgent || textOf(task.Status.Message.Parts) != "echo: hello" {
		t.Errorf("status message = %+v", task.Status.Message)
	}
	if task.ContextID == "" || task.Metadata["sessionKey"] != "agent:main:a2a:"+task.ContextID {
		t.Errorf("contextId %q, sessionKey %v", task.ContextID, task.Metadata["sessionKey"])
	}
	run, err := h.eng.GetRun(context.Background(), api.Operator(), task.ID)
	if err != nil || run.Status != domain.RunOK {
		t.Fatalf("the task id is not the run id: %v %+v", err, run)
	}

	// The same contextId is the same session: the second task sees it.
	r2 := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("m-2", task.ContextID, "again")})
	if r2.resp.Error != nil {
		t.Fatalf("second message: %+v", r2.resp.Error)
	}
	t2 := decode[wire.SendMessageResponse](t, r2.resp.Result).Task
	if t2 == nil || t2.ContextID != task.ContextID || t2.Metadata["sessionKey"] != task.Metadata["sessionKey"] || t2.ID == task.ID {
		t.Fatalf("second task = %+v", t2)
	}

	// The same messageId is a retry: the same task.
	r3 := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("m-1", "", "hello")})
	if t3 := decode[wire.SendMessageResponse](t, r3.resp.Result).Task; t3 == nil || t3.ID != task.ID {
		t.Fatalf("retry with the same messageId made another task: %s", r3.resp.Result)
	}
	// … and with other content it is refused, naming why.
	r4 := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("m-1", "", "other text")})
	if r4.code() != wire.CodeInvalidParams || !strings.Contains(r4.resp.Error.Message, "idempotency") {
		t.Fatalf("reused messageId: %+v", r4.resp.Error)
	}
}

func TestSendMessageFailedTask(t *testing.T) {
	h := newHarness(t)
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("f-1", "", "fail now")})
	task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
	if task == nil || task.Status.State != wire.TaskStateFailed || len(task.Artifacts) != 0 ||
		task.Status.Message == nil || !strings.Contains(textOf(task.Status.Message.Parts), "the model failed") {
		t.Fatalf("failed task = %s", r.resp.Result)
	}
}

func TestReturnImmediatelyThenGetAndCancel(t *testing.T) {
	h := newHarness(t)
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("s-1", "ctx-slow", "slow work"),
		"configuration": map[string]any{"returnImmediately": true}})
	task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
	if task == nil || task.Status.State.Terminal() {
		t.Fatalf("returnImmediately task = %s", r.resp.Result)
	}
	g := h.rpc(t, "reader", "main", "GetTask", map[string]any{"id": task.ID, "historyLength": 1})
	got := decode[wire.Task](t, g.resp.Result)
	if got.ID != task.ID || got.ContextID != "ctx-slow" || len(got.History) != 1 || textOf(got.History[0].Parts) != "slow work" {
		t.Fatalf("GetTask = %s", g.resp.Result)
	}
	if g := h.rpc(t, "reader", "research", "GetTask", map[string]any{"id": task.ID}); g.code() != wire.CodeTaskNotFound {
		t.Errorf("a task of another agent: %+v, want TaskNotFound", g.resp.Error)
	}
	// A reader may read but not cancel.
	if c := h.rpc(t, "reader", "main", "CancelTask", map[string]any{"id": task.ID}); c.status != http.StatusForbidden || c.resp.Error == nil {
		t.Errorf("reader cancel: %d %+v", c.status, c.resp.Error)
	}
	c := h.rpc(t, "operator", "main", "CancelTask", map[string]any{"id": task.ID})
	if ct := decode[wire.Task](t, c.resp.Result); ct.Status.State != wire.TaskStateCanceled {
		t.Fatalf("CancelTask = %s %+v", c.resp.Result, c.resp.Error)
	}
	if c := h.rpc(t, "operator", "main", "CancelTask", map[string]any{"id": task.ID}); c.code() != wire.CodeTaskNotCancelable {
		t.Errorf("second cancel: %+v, want TaskNotCancelable", c.resp.Error)
	}
	if c := h.rpc(t, "operator", "main", "CancelTask", map[string]any{"id": "nope"}); c.code() != wire.CodeTaskNotFound {
		t.Errorf("cancel unknown: %+v", c.resp.Error)
	}
	// A message naming an ended task is refused with the way forward.
	m := userMsg("s-2", "ctx-slow", "more")
	m["taskId"] = task.ID
	if r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": m}); r.code() != wire.CodeUnsupportedOperation ||
		!strings.Contains(r.resp.Error.Message, "ctx-slow") {
		t.Errorf("message to an ended task: %+v", r.resp.Error)
	}
}

func TestStreamingMessage(t *testing.T) {
	h := newHarness(t)
	st, evs := h.stream(t, "operator", "main", "SendStreamingMessage", map[string]any{"message": userMsg("st-1", "c1", "hi there")})
	if st != http.StatusOK || len(evs) < 3 {
		t.Fatalf("stream: %d %d events", st, len(evs))
	}
	first := decode[wire.StreamResponse](t, evs[0].Result)
	if first.Task == nil || first.Task.ContextID != "c1" {
		t.Fatalf("first event is not the task: %s", evs[0].Result)
	}
	var art *wire.TaskArtifactUpdateEvent
	var states []wire.TaskState
	for _, e := range evs[1:] {
		sr := decode[wire.StreamResponse](t, e.Result)
		switch {
		case sr.ArtifactUpdate != nil:
			art = sr.ArtifactUpdate
		case sr.StatusUpdate != nil:
			states = append(states, sr.StatusUpdate.Status.State)
		}
	}
	if art == nil || textOf(art.Artifact.Parts) != "echo: hi there" || art.TaskID != first.Task.ID {
		t.Errorf("artifact update = %+v", art)
	}
	if len(states) == 0 || states[len(states)-1] != wire.TaskStateCompleted {
		t.Errorf("status updates = %v, want … COMPLETED last", states)
	}
}

func TestSubscribeAndCancelMidStream(t *testing.T) {
	h := newHarness(t)
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("sub-1", "", "slow please"),
		"configuration": map[string]any{"returnImmediately": true}})
	task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cancelled := false
	_, evs := h.streamCtx(ctx, t, "operator", "main", "SubscribeToTask", map[string]any{"id": task.ID}, func(wire.Response) {
		if !cancelled {
			cancelled = true
			if c := h.rpc(t, "operator", "main", "CancelTask", map[string]any{"id": task.ID}); c.resp.Error != nil {
				t.Errorf("cancel: %+v", c.resp.Error)
			}
		}
	})
	last := decode[wire.StreamResponse](t, evs[len(evs)-1].Result)
	if last.StatusUpdate == nil || last.StatusUpdate.Status.State != wire.TaskStateCanceled {
		t.Fatalf("last event = %s", evs[len(evs)-1].Result)
	}
	// An ended task cannot be subscribed to.
	if _, evs := h.stream(t, "operator", "main", "SubscribeToTask", map[string]any{"id": task.ID}); len(evs) != 1 ||
		evs[0].Error == nil || evs[0].Error.Code != wire.CodeUnsupportedOperation {
		t.Errorf("subscribe to an ended task: %+v", evs)
	}
}

func TestGetTaskAfterRestart(t *testing.T) {
	dir := t.TempDir()
	eng, closeEng := openEngineCloser(t, dir)
	h := newHarnessOn(t, eng)
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg("rs-1", "", "remember me")})
	task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
	h.srv.Close()
	closeEng()

	h2 := newHarnessOn(t, openEngine(t, dir))
	g := h2.rpc(t, "operator", "main", "GetTask", map[string]any{"id": task.ID})
	got := decode[wire.Task](t, g.resp.Result)
	if got.Status.State != wire.TaskStateCompleted || len(got.Artifacts) != 1 || textOf(got.Artifacts[0].Parts) != "echo: remember me" {
		t.Fatalf("GetTask after restart = %s %+v", g.resp.Result, g.resp.Error)
	}
}

// TestStreamingProgress: a run that calls a tool streams a WORKING status
// naming the tool before the artifact and the final status.
func TestStreamingProgress(t *testing.T) {
	h := newHarness(t)
	_, evs := h.stream(t, "operator", "main", "SendStreamingMessage", map[string]any{"message": userMsg("tp-1", "", "tool time")})
	var progress, final string
	for _, e := range evs {
		sr := decode[wire.StreamResponse](t, e.Result)
		if su := sr.StatusUpdate; su != nil {
			if su.Status.State == wire.TaskStateWorking && su.Status.Message != nil {
				progress = textOf(su.Status.Message.Parts)
			}
			final = string(su.Status.State)
		}
	}
	if !strings.Contains(progress, "calling agents_list") || final != string(wire.TaskStateCompleted) {
		t.Fatalf("progress %q, final %q; events %d", progress, final, len(evs))
	}
}
