package engine

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
)

// TestServerPathsOnlyToOperators: absolute paths on the server — a row's
// transcriptPath, the defaults' transcriptPath, the announce's stats line —
// reach only the operator; a bound token, a caller acting as a session and
// an agent in a run get none, and the announce names the transcript
// relative to the mirror's root.
func TestServerPathsOnlyToOperators(t *testing.T) {
	h := newHarness(t, []config.ScriptRule{rule(config.ScriptWhen{Session: ":subagent:"}, "child done")}, nil)
	ctx := context.Background()
	h.chat("main", "hello")
	bound := api.Principal{Name: "bound", Scopes: api.ScopeRead | api.ScopeWrite, Session: "agent:main:main"}

	list, err := h.e.ListSessions(ctx, bound, api.ListRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.Sessions {
		if r.TranscriptPath != "" {
			t.Errorf("bound listing row %s has transcriptPath %q", r.Key, r.TranscriptPath)
		}
	}
	for _, p := range []api.Principal{bound, api.Operator().ActingAs("agent:main:main")} {
		if d, err := h.e.Defaults(ctx, p); err != nil || d.TranscriptPath != "" {
			t.Errorf("defaults for %s = %+v, %v; want no transcriptPath", p.Name, d, err)
		}
	}
	op, err := h.e.ListSessions(ctx, api.Operator(), api.ListRequest{})
	if err != nil || len(op.Sessions) == 0 || !filepath.IsAbs(op.Sessions[0].TranscriptPath) {
		t.Fatalf("operator listing = %+v, %v; want an absolute transcriptPath", op.Sessions, err)
	}
	if d, err := h.e.Defaults(ctx, api.Operator()); err != nil || d.TranscriptPath == "" {
		t.Errorf("operator defaults = %+v, %v; want a transcriptPath", d, err)
	}

	res := spawnResult(t, h.call(Requester{}, api.ToolSessionsSpawn, `{"task":"work"}`))
	h.endedRun(res.RunID)
	var text string
	h.waitFor("the announce", func() bool {
		for _, m := range announces(h, "agent:main:main") {
			if strings.Contains(m.Content.Text(), res.ChildSessionKey) {
				text = m.Content.Text()
				return true
			}
		}
		return false
	})
	if strings.Contains(text, h.dir) {
		t.Errorf("announce names a server path:\n%s", text)
	}
	if !strings.Contains(text, "transcript agents/main/sessions/") {
		t.Errorf("announce lacks the relative transcript path:\n%s", text)
	}
}
