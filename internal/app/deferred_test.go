package app

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/postgres"
)

// On PostgreSQL with synchronous_commit on, a chat turn's claim commits
// asynchronously (runtime Submit, postgres UpdateDeferred). What a client
// sees must not change: every run's events come in order (start, its user
// message, its reply, its end), each once, also for a run that outlasts
// the flush grace (its claim is flushed on its own).
func TestChatTurnWithDeferredClaimOnPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	u, err := url.Parse(pg.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("synchronous_commit", "on") // the test cluster turns it off
	u.RawQuery = q.Encode()
	cfg := config.Default()
	cfg.Store = config.StoreConfig{Driver: config.StorePostgres, URL: u.String()}
	off := false
	cfg.Transcripts.Mirror = &off
	slow := "slow answer"
	cfg.Models.Providers = map[string]config.ProviderConfig{"script": {Rules: []config.ScriptRule{
		{When: config.ScriptWhen{Message: "^slow$"}, Reply: &slow, DelayMs: 200},
	}}}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := Open(ctx, Options{StateDir: t.TempDir(), Config: cfg, Getenv: func(string) string { return "" }, Owner: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer closeApp(t, a)
	st, ok := a.Store.(*postgres.Store)
	if !ok {
		t.Fatalf("store is %T", a.Store)
	}
	events, stop := a.Engine.Subscribe(4096)
	defer stop()

	var runs []string
	for i, msg := range []string{"hi", "again", "slow", "hi", "again"} {
		key := []string{"a", "b"}[i%2]
		res, err := a.Engine.Chat(ctx, api.Operator(), api.ChatRequest{SessionKey: key, Message: msg})
		if err != nil {
			t.Fatal(err)
		}
		run, err := a.Engine.WaitRun(ctx, api.Operator(), api.WaitRequest{RunID: res.Run.ID, Timeout: 30 * time.Second})
		if err != nil || run.Status != domain.RunOK {
			t.Fatalf("turn %d: %s %v", i, run.Status, err)
		}
		runs = append(runs, run.ID)
	}

	// (A turn whose lane was still held by its session's previous run
	// is queued and claimed by a durable commit instead.)
	if n := st.DeferredCommits(); n < 1 || n > int64(len(runs)) {
		t.Errorf("%d deferred commits for %d turns, want 1 to %d", n, len(runs), len(runs))
	}

	// Each run's events, in the order they came.
	seen := map[string][]string{}
	deadline := time.After(10 * time.Second)
	for len(seen[runs[len(runs)-1]]) < 4 {
		select {
		case ev := <-events:
			switch {
			case ev.Kind == domain.EventRunStart || ev.Kind == domain.EventRunEnd:
				seen[ev.Run.ID] = append(seen[ev.Run.ID], string(ev.Kind))
			case ev.Kind == domain.EventMessage && ev.Message.RunID != "":
				seen[ev.Message.RunID] = append(seen[ev.Message.RunID], string(ev.Message.Role))
			}
		case <-deadline:
			t.Fatalf("events so far: %v", seen)
		}
	}
	want := []string{domain.EventRunStart, string(domain.RoleUser), string(domain.RoleAssistant), domain.EventRunEnd}
	for _, id := range runs {
		if got := seen[id]; !equalStrings(got, want) {
			t.Errorf("run %s events %v, want %v", id, got, want)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
