package a2a

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/engine"
	"github.com/switchboard-go/switchboard/internal/model"
	"github.com/switchboard-go/switchboard/internal/outbox"
	"github.com/switchboard-go/switchboard/internal/store/sqlite"
	"github.com/switchboard-go/switchboard/internal/transcript"
	"github.com/switchboard-go/switchboard/internal/urlguard"
)

// receiver is a push notification receiver on loopback: it records
// every request and answers with status (200 unless set).
type receiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	got    []received
	status int
	notify chan struct{}
}

type received struct {
	header http.Header
	body   []byte
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{status: http.StatusOK, notify: make(chan struct{}, 1)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.got = append(rc.got, received{r.Header.Clone(), b})
		st := rc.status
		rc.mu.Unlock()
		select {
		case rc.notify <- struct{}{}:
		default:
		}
		w.WriteHeader(st)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) all() []received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]received(nil), rc.got...)
}

// waitFor waits until ok holds of what arrived.
func (rc *receiver) waitFor(t *testing.T, what string, ok func([]received) bool) []received {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if got := rc.all(); ok(got) {
			return got
		}
		select {
		case <-rc.notify:
		case <-deadline:
			t.Fatalf("receiver: %s did not arrive; got %d requests", what, len(rc.all()))
		}
	}
}

// updateName is what a 1.0 notification announces: a state, or
// "artifact".
func updateName(t *testing.T, b []byte) string {
	t.Helper()
	var sr wire.StreamResponse
	if err := json.Unmarshal(b, &sr); err != nil {
		t.Fatalf("notification is not a StreamResponse: %v: %s", err, b)
	}
	switch {
	case sr.StatusUpdate != nil:
		return string(sr.StatusUpdate.Status.State)
	case sr.ArtifactUpdate != nil:
		return "artifact"
	}
	t.Fatalf("notification carries neither a status nor an artifact update: %s", b)
	return ""
}

// pushHarness is an A2A server with push notifications on an engine
// whose outbox delivers them.
type pushHarness struct {
	*harness
	store  *sqlite.Store
	pushes *Pushes
}

func newPushHarness(t *testing.T, allowPrivate bool) *pushHarness {
	t.Helper()
	dir := t.TempDir()
	cfg := testConfig()
	models, err := model.NewRegistry(cfg, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "switchboard.db"), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	guard := urlguard.New(urlguard.Policy{AllowPrivateNetwork: allowPrivate})
	eng, err := engine.New(engine.Options{Config: cfg, Store: st, Models: models,
		Mirror: transcript.New(dir, time.Now), StateDir: dir, MaintenanceInterval: 20 * time.Millisecond,
		Deliverers: map[domain.OutboxKind]outbox.Deliverer{PushKind: NewPushDeliverer(st, guard, nil)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pushes, err := NewPushes(PushOptions{Store: st, Subscribe: eng.Subscribe, Poke: eng.PokeOutbox, Guard: guard, Interval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := pushes.Start(); err != nil {
		t.Fatal(err)
	}
	// The tests' own runs come after the sweep, so only what a test
	// triggers enqueues its updates.
	select {
	case <-pushes.Swept():
	case <-time.After(10 * time.Second):
		t.Fatal("the push start-up sweep did not end within 10s")
	}
	t.Cleanup(func() {
		pushes.Stop()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := eng.Close(ctx); err != nil {
			t.Errorf("close engine: %v", err)
		}
		st.Close()
	})
	h := newHarnessOn(t, eng)
	h.a2a.opts.Push = pushes
	return &pushHarness{harness: h, store: st, pushes: pushes}
}

// pushItems are the queued notifications of a task.
func (h *pushHarness) pushItems(t *testing.T, taskID string) []domain.OutboxItem {
	t.Helper()
	rows, err := h.store.ListOutbox(context.Background(), domain.OutboxQuery{RunID: taskID})
	if err != nil {
		t.Fatal(err)
	}
	var out []domain.OutboxItem
	for _, r := range rows {
		if r.Kind == PushKind {
			out = append(out, r)
		}
	}
	return out
}

// settled waits until no notification of the task is pending: the
// outbox worker publishes an event after each attempt it records.
func (h *pushHarness) settled(t *testing.T, taskID string) []domain.OutboxItem {
	t.Helper()
	events, stop := h.eng.Subscribe(64)
	defer stop()
	deadline := time.After(20 * time.Second)
	for {
		items := h.pushItems(t, taskID)
		pending := 0
		for _, it := range items {
			if it.Status == domain.OutboxPending {
				pending++
			}
		}
		if pending == 0 && len(items) > 0 {
			return items
		}
		select {
		case <-events:
		case <-deadline:
			t.Fatalf("task %s: %d notifications still pending", taskID, pending)
		}
	}
}

func TestPushDeliversEachUpdateOnce(t *testing.T) {
	h := newPushHarness(t, true)
	rc := newReceiver(t)
	res := h.rpc(t, "writer", "main", "SendMessage", map[string]any{"message": userMsg("p1", "push-ctx", "hello push"),
		"configuration": map[string]any{"returnImmediately": true,
			"taskPushNotificationConfig": map[string]any{"id": "c1", "url": rc.srv.URL + "/hook", "token": "tok-1"}}})
	if res.resp.Error != nil {
		t.Fatalf("SendMessage: %+v", res.resp.Error)
	}
	task := decode[wire.SendMessageResponse](t, res.resp.Result).Task
	got := rc.waitFor(t, "the completed status", func(got []received) bool {
		for _, g := range got {
			if strings.Contains(string(g.body), string(wire.TaskStateCompleted)) {
				return true
			}
		}
		return false
	})
	h.settled(t, task.ID)
	// Another pass of the sweep finds the same updates: nothing new.
	if err := h.pushes.sync(context.Background(), mustRun(t, h, task.ID)); err != nil {
		t.Fatal(err)
	}
	items := h.settled(t, task.ID)
	got = rc.all()
	seen := map[string]int{}
	for _, g := range got {
		if tok := g.header.Get(PushTokenHeader); tok != "tok-1" {
			t.Errorf("token header = %q, want tok-1", tok)
		}
		if ct := g.header.Get("Content-Type"); ct != pushContentType {
			t.Errorf("content type = %q", ct)
		}
		if g.header.Get("Idempotency-Key") == "" {
			t.Error("no Idempotency-Key header")
		}
		seen[updateName(t, g.body)]++
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("update %s arrived %d times, want once (all: %v)", name, n, seen)
		}
	}
	if seen[string(wire.TaskStateCompleted)] != 1 || seen["artifact"] != 1 {
		t.Errorf("updates = %v, want the artifact and the completed status once each", seen)
	}
	if len(items) != len(got) {
		t.Errorf("%d notifications queued, %d arrived", len(items), len(got))
	}
	for _, it := range items {
		if it.Status != domain.OutboxDelivered {
			t.Errorf("notification %s is %s", it.IdempotencyKey, it.Status)
		}
	}
	// The artifact carries the reply.
	for _, g := range got {
		var sr wire.StreamResponse
		_ = json.Unmarshal(g.body, &sr)
		if sr.ArtifactUpdate != nil && textOf(sr.ArtifactUpdate.Artifact.Parts) != "echo: hello push" {
			t.Errorf("artifact = %q", textOf(sr.ArtifactUpdate.Artifact.Parts))
		}
	}
}

func mustRun(t *testing.T, h *pushHarness, id string) domain.Run {
	t.Helper()
	run, err := h.store.GetRun(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestPushConfigMethods(t *testing.T) {
	h := newPushHarness(t, true)
	rc := newReceiver(t)
	res := h.rpc(t, "writer", "main", "SendMessage", map[string]any{"message": userMsg("m1", "cfg-ctx", "slow one"),
		"configuration": map[string]any{"returnImmediately": true}})
	task := decode[wire.SendMessageResponse](t, res.resp.Result).Task
	defer h.rpc(t, "writer", "main", "CancelTask", map[string]any{"id": task.ID})

	// 1.0: create (the id chosen by the server), get, list, delete.
	cr := h.rpc(t, "writer", "main", "CreateTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "url": rc.srv.URL,
		"authentication": map[string]any{"scheme": "Bearer", "credentials": "s3cret"}})
	if cr.resp.Error != nil {
		t.Fatalf("create: %+v", cr.resp.Error)
	}
	created := decode[wire.TaskPushNotificationConfig](t, cr.resp.Result)
	if created.ID == "" || created.TaskID != task.ID || created.URL != rc.srv.URL {
		t.Fatalf("created = %+v", created)
	}
	got := rc.waitFor(t, "the current state", func(g []received) bool { return len(g) > 0 })
	if a := got[0].header.Get("Authorization"); a != "Bearer s3cret" {
		t.Errorf("Authorization = %q", a)
	}
	if gr := h.rpc(t, "writer", "main", "GetTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": created.ID}); gr.resp.Error != nil ||
		decode[wire.TaskPushNotificationConfig](t, gr.resp.Result).ID != created.ID {
		t.Errorf("get = %+v", gr.resp)
	}
	lr := h.rpc(t, "writer", "main", "ListTaskPushNotificationConfigs", map[string]any{"taskId": task.ID})
	if l := decode[wire.ListPushConfigsResponse](t, lr.resp.Result); len(l.Configs) != 1 || l.Configs[0].ID != created.ID {
		t.Errorf("list = %s", lr.resp.Result)
	}
	// 0.3: set with an id, get, list.
	sr := h.rpc(t, "writer", "main", "tasks/pushNotificationConfig/set", map[string]any{"taskId": task.ID,
		"pushNotificationConfig": map[string]any{"id": "legacy", "url": rc.srv.URL, "token": "t03"}})
	if sr.resp.Error != nil {
		t.Fatalf("0.3 set: %+v", sr.resp.Error)
	}
	lr = h.rpc(t, "writer", "main", "tasks/pushNotificationConfig/list", map[string]any{"id": task.ID})
	if !strings.Contains(string(lr.resp.Result), `"legacy"`) || !strings.Contains(string(lr.resp.Result), created.ID) {
		t.Errorf("0.3 list = %s", lr.resp.Result)
	}
	if dr := h.rpc(t, "writer", "main", "tasks/pushNotificationConfig/delete", map[string]any{"id": task.ID, "pushNotificationConfigId": "legacy"}); dr.resp.Error != nil {
		t.Errorf("0.3 delete: %+v", dr.resp.Error)
	}
	if dr := h.rpc(t, "writer", "main", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": created.ID}); dr.resp.Error != nil {
		t.Errorf("delete: %+v", dr.resp.Error)
	}
	lr = h.rpc(t, "writer", "main", "ListTaskPushNotificationConfigs", map[string]any{"taskId": task.ID})
	if l := decode[wire.ListPushConfigsResponse](t, lr.resp.Result); len(l.Configs) != 0 {
		t.Errorf("list after delete = %s", lr.resp.Result)
	}
	if gr := h.rpc(t, "writer", "main", "GetTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": created.ID}); gr.resp.Error == nil ||
		gr.resp.Error.Data.(map[string]any)["code"] != domain.CodeNotFound {
		t.Errorf("get after delete = %+v", gr.resp)
	}
	// The card says push notifications are on.
	card := h.a2a.Card("http://x", Agent{ID: "main"})
	if card.Capabilities.PushNotifications == nil || !*card.Capabilities.PushNotifications {
		t.Error("card does not offer push notifications")
	}
}

func TestPushConfigBelongsToItsMaker(t *testing.T) {
	h := newPushHarness(t, true)
	rc := newReceiver(t)
	res := h.rpc(t, "writer", "main", "SendMessage", map[string]any{"message": userMsg("o1", "own-ctx", "slow one"),
		"configuration": map[string]any{"returnImmediately": true,
			"taskPushNotificationConfig": map[string]any{"id": "mine", "url": rc.srv.URL}}})
	if res.resp.Error != nil {
		t.Fatal(res.resp.Error)
	}
	task := decode[wire.SendMessageResponse](t, res.resp.Result).Task
	defer h.rpc(t, "operator", "main", "CancelTask", map[string]any{"id": task.ID})
	// The operator sees the task, not writer's config.
	if gr := h.rpc(t, "operator", "main", "GetTask", map[string]any{"id": task.ID}); gr.resp.Error != nil {
		t.Fatalf("operator GetTask: %+v", gr.resp.Error)
	}
	if gr := h.rpc(t, "operator", "main", "GetTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": "mine"}); gr.resp.Error == nil {
		t.Errorf("another principal read the config: %s", gr.resp.Result)
	}
	lr := h.rpc(t, "operator", "main", "ListTaskPushNotificationConfigs", map[string]any{"taskId": task.ID})
	if l := decode[wire.ListPushConfigsResponse](t, lr.resp.Result); len(l.Configs) != 0 {
		t.Errorf("another principal listed %s", lr.resp.Result)
	}
	if dr := h.rpc(t, "operator", "main", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": "mine"}); dr.resp.Error == nil {
		t.Error("another principal deleted the config")
	}
	// Nor can it take the id over.
	if cr := h.rpc(t, "operator", "main", "CreateTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": "mine", "url": rc.srv.URL + "/evil"}); cr.resp.Error == nil {
		t.Error("another principal replaced the config")
	}
	if gr := h.rpc(t, "writer", "main", "GetTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "id": "mine"}); gr.resp.Error != nil ||
		decode[wire.TaskPushNotificationConfig](t, gr.resp.Result).URL != rc.srv.URL {
		t.Errorf("owner's config = %+v", gr.resp)
	}
	// A reader may not make one.
	if cr := h.rpc(t, "reader", "main", "CreateTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "url": rc.srv.URL}); cr.resp.Error == nil ||
		cr.resp.Error.Data.(map[string]any)["code"] != domain.CodeForbidden {
		t.Errorf("reader create = %+v", cr.resp)
	}
}

func TestPushGuardRefusesPrivateTargets(t *testing.T) {
	h := newPushHarness(t, false)
	res := h.rpc(t, "writer", "main", "SendMessage", map[string]any{"message": userMsg("g1", "guard-ctx", "hello"),
		"configuration": map[string]any{"returnImmediately": true}})
	task := decode[wire.SendMessageResponse](t, res.resp.Result).Task
	for _, url := range []string{"http://127.0.0.1:9/hook", "http://localhost/hook", "http://169.254.169.254/latest", "http://10.0.0.1/", "http://[::1]/", "ftp://example.com/", "http://user:pw@example.com/"} {
		cr := h.rpc(t, "writer", "main", "CreateTaskPushNotificationConfig", map[string]any{"taskId": task.ID, "url": url})
		if cr.resp.Error == nil || cr.resp.Error.Code != wire.CodeInvalidParams || !strings.Contains(cr.resp.Error.Message, "refused by the outbound URL policy") {
			t.Errorf("%s: %+v", url, cr.resp)
		}
	}
	// In a SendMessage too, before the task exists.
	sr := h.rpc(t, "writer", "main", "SendMessage", map[string]any{"message": userMsg("g2", "guard-ctx", "hello"),
		"configuration": map[string]any{"taskPushNotificationConfig": map[string]any{"url": "http://127.0.0.1:9/"}}})
	if sr.resp.Error == nil || !strings.Contains(sr.resp.Error.Message, "outbound URL policy") {
		t.Errorf("SendMessage with a loopback push URL: %+v", sr.resp)
	}
	runs, _ := h.store.ListRuns(context.Background(), domain.RunQuery{})
	if len(runs) != 1 {
		t.Errorf("%d runs, want 1: the refused message started none", len(runs))
	}
}

// TestPushDeliveryChecksAgain: a config stored while its URL was allowed
// is refused at delivery by a stricter guard, and fails for good at once.
func TestPushDeliveryChecksAgain(t *testing.T) {
	h := newPushHarness(t, true)
	rc := newReceiver(t)
	run := seededRun(t, h)
	if _, err := savePushConfig(context.Background(), h.store, run, pushConfig{ID: "c", TaskID: run.ID, URL: rc.srv.URL, Owner: "x", Gen: wire.Version}, 1); err != nil {
		t.Fatal(err)
	}
	strict := NewPushDeliverer(h.store, urlguard.New(urlguard.Policy{}), nil)
	items := queued(t, h, run)
	err := strict.Deliver(context.Background(), items[0])
	if err == nil || !urlguard.Refused(err) || !isPermanent(err) {
		t.Errorf("strict delivery = %v, want a permanent refusal", err)
	}
	if n := len(rc.all()); n != 0 {
		t.Errorf("receiver got %d requests", n)
	}
}

// seededRun is an ended run in the harness's store, made without the
// engine (its notifications are queued by hand).
func seededRun(t *testing.T, h *pushHarness) domain.Run {
	t.Helper()
	run := domain.Run{ID: "seeded-" + strings.ReplaceAll(t.Name(), "/", "-"), SessionKey: "agent:main:a2a:seeded", AgentID: "main",
		Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunOK, Message: "hi", Reply: "hello", CreatedAt: 1, EndedAt: 2}
	err := h.store.Update(context.Background(), func(tx domain.Tx) error {
		_, _, err := tx.CreateRun(run)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// queued enqueues run's notifications as Pushes would, but due far in
// the future so that the engine's outbox worker leaves them to the test,
// and returns them.
func queued(t *testing.T, h *pushHarness, run domain.Run) []domain.OutboxItem {
	t.Helper()
	configs, err := pushConfigs(context.Background(), h.store, run.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = h.store.Update(context.Background(), func(tx domain.Tx) error {
		for _, c := range configs {
			for _, u := range pushUpdates(run, c.Gen) {
				payload, _ := json.Marshal(pushItem{Config: c.key, Update: u.name, ContentType: u.contentType, Body: u.body})
				if _, _, err := tx.EnqueueOutbox(domain.OutboxItem{IdempotencyKey: "held:" + run.ID + ":" + u.name, Kind: PushKind,
					SessionKey: run.SessionKey, RunID: run.ID, Payload: payload, Status: domain.OutboxPending, NextAttemptAt: 1 << 60}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return h.pushItems(t, run.ID)
}

func isPermanent(err error) bool {
	return err != nil && strings.Contains(err.Error(), outbox.ErrPermanent.Error())
}

// TestPushRetriesAreBounded: a receiver that keeps failing gets the
// outbox's retry budget of attempts, then the item fails for good; one
// that refuses (4xx) or redirects is not retried.
func TestPushRetriesAreBounded(t *testing.T) {
	h := newPushHarness(t, true)
	rc := newReceiver(t)
	rc.status = http.StatusServiceUnavailable
	d := NewPushDeliverer(h.store, urlguard.New(urlguard.Policy{AllowPrivateNetwork: true}), nil)
	ctx := context.Background()
	cases := []struct {
		status    int
		permanent bool
	}{{503, false}, {429, false}, {408, false}, {500, false}, {400, true}, {401, true}, {404, true}, {302, true}, {204, false}}
	for _, c := range cases {
		rc.mu.Lock()
		rc.status = c.status
		rc.mu.Unlock()
		it := pushTestItem(t, h, rc.srv.URL)
		err := d.Deliver(ctx, it)
		switch {
		case c.status == 204 && err != nil:
			t.Errorf("%d: %v, want delivered", c.status, err)
		case c.status != 204 && (err == nil || isPermanent(err) != c.permanent):
			t.Errorf("%d: %v, want permanent=%v", c.status, err, c.permanent)
		}
	}
	// The outbox's own worker, on a clock that runs ahead: 503 forever.
	rc.mu.Lock()
	rc.status, rc.got = http.StatusServiceUnavailable, nil
	rc.mu.Unlock()
	it := pushTestItem(t, h, rc.srv.URL)
	var mu sync.Mutex
	// Far ahead of the engine's own worker, which must not see the item
	// due between these passes.
	now := time.Now().AddDate(100, 0, 0)
	w, err := outbox.New(outbox.Config{Store: onlyItem{h.store, it.ID}, Deliverers: map[domain.OutboxKind]outbox.Deliverer{PushKind: d},
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3*outbox.DefaultMaxAttempts; i++ {
		w.RunOnce(ctx)
		mu.Lock()
		now = now.Add(10 * time.Minute)
		mu.Unlock()
	}
	if n := len(rc.all()); n != outbox.DefaultMaxAttempts {
		t.Errorf("receiver got %d attempts, want the retry budget %d", n, outbox.DefaultMaxAttempts)
	}
	rows, _ := h.store.ListOutbox(ctx, domain.OutboxQuery{RunID: it.RunID})
	for _, r := range rows {
		if r.ID == it.ID && (r.Status != domain.OutboxFailed || r.Attempts != outbox.DefaultMaxAttempts) {
			t.Errorf("item = %s after %d attempts", r.Status, r.Attempts)
		}
	}
}

var pushTestItems int

// pushTestItem stores a config on a new ended run and returns its queued
// completed notification.
func pushTestItem(t *testing.T, h *pushHarness, url string) domain.OutboxItem {
	t.Helper()
	pushTestItems++
	run := domain.Run{ID: "bounded-" + strings.Repeat("x", pushTestItems), SessionKey: "agent:main:a2a:bounded", AgentID: "main",
		Kind: domain.RunKindChat, Lane: domain.LaneMain, Status: domain.RunError, Message: "hi", Error: "boom", CreatedAt: 1, EndedAt: 2}
	if err := h.store.Update(context.Background(), func(tx domain.Tx) error { _, _, err := tx.CreateRun(run); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := savePushConfig(context.Background(), h.store, run, pushConfig{ID: "c", TaskID: run.ID, URL: url, Owner: "x", Gen: wire.Version}, 1); err != nil {
		t.Fatal(err)
	}
	items := queued(t, h, run)
	if len(items) != 1 {
		t.Fatalf("%d items queued for a failed task, want 1", len(items))
	}
	return items[0]
}

// onlyItem is the store as a worker sees it, with only one item due:
// the one under test, whatever its NextAttemptAt says (the engine's own
// worker leaves it alone).
type onlyItem struct {
	*sqlite.Store
	id int64
}

func (o onlyItem) ListOutbox(ctx context.Context, q domain.OutboxQuery) ([]domain.OutboxItem, error) {
	rows, err := o.Store.ListOutbox(ctx, domain.OutboxQuery{Statuses: q.Statuses})
	var out []domain.OutboxItem
	for _, r := range rows {
		if r.ID == o.id {
			out = append(out, r)
		}
	}
	return out, err
}

// TestPushSweepEnqueuesOnce: an update committed while no one watched
// (the process died between the task's end and its enqueue) is found by
// the sweep at start, and a second sweep finds nothing new.
func TestPushSweepEnqueuesOnce(t *testing.T) {
	h := newPushHarness(t, true)
	rc := newReceiver(t)
	run := seededRun(t, h)
	if _, err := savePushConfig(context.Background(), h.store, run, pushConfig{ID: "c", TaskID: run.ID, URL: rc.srv.URL, Owner: "x", Gen: wire.Version}, 1); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		p, err := NewPushes(PushOptions{Store: h.store, Subscribe: h.eng.Subscribe, Poke: h.eng.PokeOutbox, Guard: urlguard.New(urlguard.Policy{AllowPrivateNetwork: true})})
		if err != nil {
			t.Fatal(err)
		}
		p.sweep(context.Background())
		h.settled(t, run.ID)
	}
	got := rc.all()
	names := map[string]int{}
	for _, g := range got {
		names[updateName(t, g.body)]++
	}
	if len(got) != 2 || names["artifact"] != 1 || names[string(wire.TaskStateCompleted)] != 1 {
		t.Errorf("after two sweeps the receiver got %v", names)
	}
}
