package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/a2a"
	"github.com/a2aproject/a2a-go/a2aclient"
	"github.com/a2aproject/a2a-go/a2aclient/agentcard"
	"github.com/switchboard-go/switchboard/internal/testkit"
)

// a2aConfig gives the script model a slow rule (for cancel), a streamed
// rule (for artifact deltas) and the main agent a skill (for the card).
const a2aConfig = `{
  agents: { list: [{ id: "main", name: "Main", description: "switchboard main agent",
    skills: [{ id: "qa", name: "Questions", description: "answers", tags: ["chat"] }] }] },
  models: { providers: { script: { rules: [
    { when: { role: "user", message: "^slow" }, reply: "finally", delayMs: 60000 },
    { when: { role: "user", message: "^chunky" }, reply: "streamed in several pieces", chunkChars: 5, chunkMs: 5 },
  ] } } },
}`

// a2aGateway starts a gateway with a2aConfig.
func a2aGateway(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "switchboard.json5"), []byte(a2aConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	return gateway(t, dir)
}

func textOf(parts a2a.ContentParts) string {
	var b strings.Builder
	for _, p := range parts {
		if tp, ok := p.(a2a.TextPart); ok {
			b.WriteString(tp.Text)
		}
	}
	return b.String()
}

// TestA2AGoSDKClient drives the 0.3 methods (message/send, message/stream,
// tasks/get, tasks/cancel) with the official Go SDK's client, from card
// resolution on.
func TestA2AGoSDKClient(t *testing.T) {
	base := a2aGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	card, err := agentcard.DefaultResolver.Resolve(ctx, base)
	if err != nil {
		t.Fatalf("resolve card: %v", err)
	}
	if card.Name != "Main" || card.URL != base+"/a2a/agents/main" || card.PreferredTransport != a2a.TransportProtocolJSONRPC {
		t.Fatalf("card = name %q url %q transport %q", card.Name, card.URL, card.PreferredTransport)
	}
	hc := &http.Client{Transport: bearer{http.DefaultTransport}}
	client, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(hc))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Destroy()

	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hello from go"})
	msg.ContextID = "go-ctx"
	yes := true
	res, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: msg, Config: &a2a.MessageSendConfig{Blocking: &yes}})
	if err != nil {
		t.Fatal(err)
	}
	task, ok := res.(*a2a.Task)
	if !ok || task.Status.State != a2a.TaskStateCompleted || len(task.Artifacts) != 1 || textOf(task.Artifacts[0].Parts) != "echo: hello from go" || task.ContextID != "go-ctx" {
		t.Fatalf("message/send = %#v", res)
	}
	got, err := client.GetTask(ctx, &a2a.TaskQueryParams{ID: task.ID})
	if err != nil || got.Status.State != a2a.TaskStateCompleted || textOf(got.Artifacts[0].Parts) != "echo: hello from go" {
		t.Fatalf("tasks/get = %+v, %v", got, err)
	}

	// message/stream: task, …, artifact-update, final status-update.
	var kinds []string
	var final *a2a.TaskStatusUpdateEvent
	art := ""
	for ev, err := range client.SendStreamingMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "stream it"})}) {
		if err != nil {
			t.Fatalf("message/stream: %v", err)
		}
		switch e := ev.(type) {
		case *a2a.Task:
			kinds = append(kinds, "task")
		case *a2a.TaskArtifactUpdateEvent:
			kinds = append(kinds, "artifact-update")
			art += textOf(e.Artifact.Parts)
		case *a2a.TaskStatusUpdateEvent:
			kinds = append(kinds, "status-update")
			if e.Final {
				final = e
			}
		}
	}
	if len(kinds) < 3 || kinds[0] != "task" || art != "echo: stream it" || final == nil || final.Status.State != a2a.TaskStateCompleted {
		t.Fatalf("message/stream events %v, artifact %q, final %+v", kinds, art, final)
	}

	// tasks/cancel on a slow task started without blocking.
	no := false
	res, err = client.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "slow one"}),
		Config: &a2a.MessageSendConfig{Blocking: &no}})
	if err != nil {
		t.Fatal(err)
	}
	slow := res.(*a2a.Task)
	if slow.Status.State.Terminal() {
		t.Fatalf("non-blocking slow task already ended: %+v", slow.Status)
	}
	c, err := client.CancelTask(ctx, &a2a.TaskIDParams{ID: slow.ID})
	if err != nil || c.Status.State != a2a.TaskStateCanceled {
		t.Fatalf("tasks/cancel = %+v, %v", c, err)
	}
	if _, err := client.CancelTask(ctx, &a2a.TaskIDParams{ID: slow.ID}); !errors.Is(err, a2a.ErrTaskNotCancelable) {
		t.Errorf("second tasks/cancel: %v, want ErrTaskNotCancelable", err)
	}
	if _, err := client.GetTask(ctx, &a2a.TaskQueryParams{ID: "no-such-task"}); !errors.Is(err, a2a.ErrTaskNotFound) {
		t.Errorf("tasks/get unknown: %v, want ErrTaskNotFound", err)
	}

	// Bad input as the SDK sends it: an oversized message, a file part.
	big := a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: strings.Repeat("x", 100_001)})
	// (the SDK maps the JSON-RPC code to its sentinel error and drops the
	// message, which internal/a2a's tests check).
	if _, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: big}); !errors.Is(err, a2a.ErrInvalidParams) {
		t.Errorf("oversized message: %v, want invalid params", err)
	}
	file := a2a.NewMessage(a2a.MessageRoleUser, a2a.FilePart{File: a2a.FileURI{URI: "https://example.com/f.pdf"}})
	if _, err := client.SendMessage(ctx, &a2a.MessageSendParams{Message: file}); !errors.Is(err, a2a.ErrUnsupportedContentType) {
		t.Errorf("file part: %v, want unsupported content type", err)
	}

	// Without the token the endpoint refuses.
	anon, err := a2aclient.NewFromCard(ctx, card, a2aclient.WithJSONRPCTransport(http.DefaultClient))
	if err != nil {
		t.Fatal(err)
	}
	defer anon.Destroy()
	if _, err := anon.SendMessage(ctx, &a2a.MessageSendParams{Message: a2a.NewMessage(a2a.MessageRoleUser, a2a.TextPart{Text: "hi"})}); err == nil ||
		!strings.Contains(err.Error(), "401") {
		t.Errorf("no token: %v, want a 401", err)
	}
}

// TestA2AJSClient drives SendMessage, SendStreamingMessage, GetTask,
// CancelTask and SubscribeToTask (protocol 1.0) with the official
// JavaScript SDK.
func TestA2AJSClient(t *testing.T) {
	node := realNode(t)
	base := a2aGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "a2a_client.mjs")
	cmd.Env = append(os.Environ(), "A2A_BASE="+base, "A2A_TOKEN="+token)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out); err != nil {
		t.Fatalf("a2a_client.mjs: %v\nstdout: %s\nstderr: %s", runErr, stdout.String(), stderr.String())
	}
	if runErr != nil {
		t.Fatalf("a2a_client.mjs failed: %v: %v\nstderr: %s", runErr, out["fatal"], stderr.String())
	}
	get := func(path ...string) any {
		var v any = out
		for _, p := range path {
			m, _ := v.(map[string]any)
			v = m[p]
		}
		return v
	}
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"cardName"}, "Main"},
		{[]string{"send", "state"}, "TASK_STATE_COMPLETED"},
		{[]string{"send", "contextId"}, "js-ctx"},
		{[]string{"send", "artifact"}, "echo: hello from js"},
		{[]string{"get", "state"}, "TASK_STATE_COMPLETED"},
		{[]string{"get", "artifact"}, "echo: hello from js"},
		{[]string{"stream", "artifact"}, "echo: stream please"},
		{[]string{"stream", "lastState"}, "TASK_STATE_COMPLETED"},
		{[]string{"cancel", "state"}, "TASK_STATE_CANCELED"},
		{[]string{"subscribe", "lastState"}, "TASK_STATE_CANCELED"},
		{[]string{"chunked", "artifact"}, "streamed in several pieces"},
		{[]string{"chunked", "lastChunk"}, true},
		{[]string{"chunked", "lastState"}, "TASK_STATE_COMPLETED"},
	}
	for _, c := range checks {
		if got := get(c.path...); got != c.want {
			t.Errorf("%s = %v, want %v (all: %v)", strings.Join(c.path, "."), got, c.want, out)
		}
	}
	// ListTasks: both tasks of the context, newest first, one per page.
	if l := fmt.Sprint(get("list", "listed")); l != "[echo: stream please echo: hello from js]" ||
		get("list", "pages") != 2.0 || get("list", "totalSize") != 2.0 || get("list", "completed") != 2.0 {
		t.Errorf("ListTasks = %v", out["list"])
	}
	if s, _ := out["unknownTask"].(string); !strings.Contains(s, "not found") {
		t.Errorf("unknown task: %q", s)
	}
	if out["extendedCardOffered"] != true {
		t.Errorf("the card the SDK read does not offer the extended card: %v", out)
	}
	if s, _ := out["noTokenCard"].(string); s == "no error" || s == "" || !strings.Contains(s, "401") && !strings.Contains(strings.ToLower(s), "unauthorized") {
		t.Errorf("extended card without a token: %q", s)
	}
	if s, _ := out["noToken"].(string); s == "no error" || s == "" {
		t.Errorf("no token: %q", s)
	}
	if kinds, _ := get("stream", "kinds").([]any); len(kinds) < 3 || kinds[0] != "task" {
		t.Errorf("stream kinds = %v", kinds)
	}
	// The streamed reply arrives as several artifact updates, most of them
	// appends (the first replaces, the rest append).
	if n, _ := get("chunked", "updates").(float64); n < 3 {
		t.Errorf("chunked reply: %v artifact updates, want several (%v)", n, out["chunked"])
	}
	if n, _ := get("chunked", "appends").(float64); n < 2 {
		t.Errorf("chunked reply: %v append updates, want several (%v)", n, out["chunked"])
	}
}

// realNode returns the Node 24 that .ci/run installs into node_modules
// (with @a2a-js/sdk next to it), or skips outside CI.
func realNode(t *testing.T) string {
	t.Helper()
	node := testkit.Node(t)
	_, errNode := os.Stat(node)
	_, errSDK := os.Stat(filepath.Join(testkit.NodeModules(t), "@a2a-js", "sdk", "package.json"))
	if errNode == nil && errSDK == nil {
		return node
	}
	if os.Getenv("CI") != "" || os.Getenv("SWITCHBOARD_REAL_CLIENTS") == "1" {
		t.Fatalf("Node and @a2a-js/sdk are not installed in test/realclients (npm ci there): %v %v", errNode, errSDK)
	}
	t.Skip("run `npm ci` in test/realclients (as .ci/run does) to test with the A2A JavaScript SDK")
	return ""
}
