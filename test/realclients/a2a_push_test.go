package realclients

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/switchboard-go/switchboard/internal/testkit"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// pushConfig: a task that takes a few seconds (so the gateway can be
// killed while it runs), and push URLs on loopback allowed (the test's
// receiver listens there).
const pushConfig = `{
  a2a: { ssrfPolicy: { dangerouslyAllowPrivateNetwork: true } },
  models: { providers: { script: { rules: [
    { when: { role: "user", message: "^pushslow" }, reply: "pushed after a restart", delayMs: 4000 },
  ] } } },
}`

// pushReceiver records the notifications posted to it.
type pushReceiver struct {
	mu     sync.Mutex
	got    []pushNote
	notify chan struct{}
}

type pushNote struct {
	update, token, key string
}

func (rc *pushReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var sr struct {
		StatusUpdate *struct {
			Status struct {
				State string `json:"state"`
			} `json:"status"`
		} `json:"statusUpdate"`
		ArtifactUpdate *struct {
			Artifact struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"artifact"`
		} `json:"artifactUpdate"`
	}
	n := pushNote{token: r.Header.Get("X-A2A-Notification-Token"), key: r.Header.Get("Idempotency-Key")}
	switch {
	case json.Unmarshal(b, &sr) != nil:
		n.update = "undecodable: " + string(b)
	case sr.StatusUpdate != nil:
		n.update = sr.StatusUpdate.Status.State
	case sr.ArtifactUpdate != nil && len(sr.ArtifactUpdate.Artifact.Parts) > 0:
		n.update = "artifact: " + sr.ArtifactUpdate.Artifact.Parts[0].Text
	default:
		n.update = "unknown: " + string(b)
	}
	rc.mu.Lock()
	rc.got = append(rc.got, n)
	rc.mu.Unlock()
	select {
	case rc.notify <- struct{}{}:
	default:
	}
}

func (rc *pushReceiver) waitFor(t *testing.T, update string) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		rc.mu.Lock()
		for _, n := range rc.got {
			if n.update == update {
				rc.mu.Unlock()
				return
			}
		}
		rc.mu.Unlock()
		select {
		case <-rc.notify:
		case <-deadline:
			t.Fatalf("no %s notification; got %+v", update, rc.all())
		}
	}
}

func (rc *pushReceiver) all() []pushNote {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]pushNote(nil), rc.got...)
}

// TestA2APushAcrossKill: the JavaScript SDK registers a push config on a
// running task; the gateway is killed (SIGKILL) while the task runs and
// started again; the receiver gets each update of the task once.
func TestA2APushAcrossKill(t *testing.T) {
	node := realNode(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "switchboard.json5"), []byte(pushConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	rc := &pushReceiver{notify: make(chan struct{}, 1)}
	recv := httptest.NewServer(rc)
	defer recv.Close()
	g := testkit.StartGateway(t, testkit.GatewayOptions{Name: "a2a push", Dir: dir, Token: token, KillAtEnd: true})

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "a2a_push.mjs")
	cmd.Env = append(os.Environ(), "A2A_BASE="+g.URL, "A2A_TOKEN="+token, "PUSH_URL="+recv.URL+"/hook", "PUSH_TOKEN=receiver-secret")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var out struct {
		PushNotifications bool   `json:"pushNotifications"`
		TaskID            string `json:"taskId"`
		Created           struct {
			ID, TaskID, URL, Token string
		} `json:"created"`
		Got    struct{ ID, URL string } `json:"got"`
		Listed []string                 `json:"listed"`
		Fatal  string                   `json:"fatal"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &out); err != nil || runErr != nil {
		t.Fatalf("a2a_push.mjs: %v %v\nstdout: %s\nstderr: %s", runErr, err, stdout.String(), stderr.String())
	}
	if !out.PushNotifications || out.Created.ID != "js-push-config" || out.Created.TaskID != out.TaskID ||
		out.Created.URL != recv.URL+"/hook" || out.Got.ID != "js-push-config" || len(out.Listed) != 1 {
		t.Fatalf("what the SDK saw: %+v", out)
	}

	// The task runs: kill the gateway in the middle of it.
	rc.waitFor(t, "TASK_STATE_WORKING")
	g.Kill()
	g2 := testkit.StartGateway(t, testkit.GatewayOptions{Name: "a2a push", Dir: dir, Token: token, KillAtEnd: true})
	rc.waitFor(t, "TASK_STATE_COMPLETED")
	g2.Stop()

	// Nothing is left to send that has not arrived: an item whose POST
	// the stop cut short may stay pending, to be sent again (with the
	// same Idempotency-Key) at the next start, but one that never
	// arrived is a lost update.
	received := map[string]bool{}
	for _, n := range rc.all() {
		received[n.key] = true
	}
	list := exec.Command(testkit.Binary(t), "--state-dir", dir, "outbox", "list", "--status", "pending", "--json")
	b, err := list.Output()
	if err != nil {
		t.Fatalf("outbox list: %v", err)
	}
	var pending struct {
		Items []struct {
			Kind           string `json:"kind"`
			IdempotencyKey string `json:"idempotencyKey"`
		} `json:"items"`
	}
	if err := json.Unmarshal(b, &pending); err != nil {
		t.Fatalf("outbox list: %v: %s", err, b)
	}
	for _, it := range pending.Items {
		if it.Kind == "a2a_push" && !received[it.IdempotencyKey] {
			t.Errorf("a push notification never sent is still pending: %s", b)
		}
	}
	counts := map[string]int{}
	keys := map[string]bool{}
	for _, n := range rc.all() {
		counts[n.update]++
		if n.token != "receiver-secret" {
			t.Errorf("notification %s carried token %q", n.update, n.token)
		}
		if keys[n.key] {
			t.Errorf("Idempotency-Key %s arrived twice", n.key)
		}
		keys[n.key] = true
	}
	for u, n := range counts {
		if n != 1 {
			t.Errorf("%s arrived %d times (all: %v)", u, n, counts)
		}
	}
	if counts["TASK_STATE_WORKING"] != 1 || counts["TASK_STATE_COMPLETED"] != 1 || counts["artifact: pushed after a restart"] != 1 {
		t.Errorf("updates = %v, want WORKING, the artifact and COMPLETED once each", counts)
	}
}
