package conformance

import (
	"net/http"
	"net/url"
	"testing"
)

// betaMarker is the text seeded into beta's main session: a read of
// "main" as agent:beta:main must find it.
const betaMarker = "beta-marker-7f3a"

// Labels seed gives sessions: twinLabel names one session of agent main
// and one of agent guest (the bound tokens' agent); secretLabel names the
// foreign session only.
const (
	twinLabel   = "twin"
	twinMain    = "agent:main:twin"
	twinGuest   = "agent:guest:twin"
	secretLabel = "secret-label"
)

// seedIDs are the ids seed made that rows name.
type seedIDs struct {
	mainRun       string // an ended run of agent:main:main, served state dir
	foreignRun    string // an ended run of foreignKey, served state dir
	boundRun      string // an ended run of boundKey, served state dir
	inprocMainRun string // an ended run of agent:main:main, in-process state dir
	mainSID       string // agent:main:main's sessionId, served state dir
	foreignSID    string // foreignKey's sessionId, served state dir
	endedChild    string // the runId of an ended sub-agent of agent:main:main, served state dir
}

// seed makes the sessions rows read, before any row runs: on the served
// state dir the bound token's session, a foreign session, both mains, the
// labelled sessions and an ended sub-agent of main; on the in-process one
// both mains and an ended sub-agent (so its outbox has items).
func (w *world) seed(t *testing.T) {
	t.Helper()
	w.ids.foreignRun = runIDIn(t, w.chatHTTP(t, foreignKey, "secret of another session"))
	w.ids.boundRun = runIDIn(t, w.chatHTTP(t, boundKey, "hello bound"))
	w.ids.mainRun = runIDIn(t, w.chatHTTP(t, "agent:main:main", "hello main"))
	w.chatHTTP(t, betaMain, betaMarker)
	w.ids.inprocMainRun = w.chatCLI(t, sCLI, "agent:main:main", "hello main")
	w.chatCLI(t, sCLI, betaMain, betaMarker)
	for key, label := range map[string]string{twinMain: twinLabel, twinGuest: twinLabel, foreignKey: secretLabel} {
		w.seedOK(t, http.MethodPost, "/api/sessions/"+url.PathEscape(key)+"/patch", map[string]any{"label": label})
	}
	w.ids.mainSID = jsonPath(w.seedOK(t, http.MethodGet, "/api/sessions/agent:main:main", nil), "sessionId")
	w.ids.foreignSID = jsonPath(w.seedOK(t, http.MethodGet, "/api/sessions/"+url.PathEscape(foreignKey), nil), "sessionId")
	if w.ids.mainSID == "" || w.ids.foreignSID == "" {
		t.Fatalf("seed: no sessionId for agent:main:main (%q) or %s (%q)", w.ids.mainSID, foreignKey, w.ids.foreignSID)
	}
	child := jsonPath(w.seedOK(t, http.MethodPost, "/api/spawn", map[string]any{"task": "seed child"}), "runId")
	if child == "" {
		t.Fatal("seed: spawn gave no runId")
	}
	if st := jsonPath(w.seedOK(t, http.MethodGet, "/api/runs/"+child+"?wait=30s", nil), "status"); st != "ok" {
		t.Fatalf("seed: the seed child ended %q, want ok", st)
	}
	w.ids.endedChild = child
	if r := w.cli(t, w.inproc, "spawn", "seed child", "--json"); !r.ok {
		t.Fatalf("seed: in-process spawn: exit %d: %s", r.exit, r.msg)
	}
	w.seedProgress(t)
}

// seedOK makes an operator HTTP call on the served state dir that must
// succeed, and returns its body.
func (w *world) seedOK(t *testing.T, method, path string, body any) []byte {
	t.Helper()
	st, b := w.httpDo(t, operatorToken, method, path, body)
	if st != http.StatusOK {
		t.Fatalf("seed: %s %s: %d %s", method, path, st, b)
	}
	return b
}

// runIDIn is the run id of a chat answer ({run: {runId}}).
func runIDIn(t *testing.T, b []byte) string {
	t.Helper()
	id := firstOf(b, "run.runId", "runId")
	if id == "" {
		t.Fatalf("seed: no runId in %s", b)
	}
	return id
}

// chatHTTP makes the operator chat into key on the served state dir and
// waits for the reply; it returns the run.
func (w *world) chatHTTP(t *testing.T, key, msg string) []byte {
	t.Helper()
	st, b := w.httpDo(t, operatorToken, http.MethodPost, "/api/sessions/"+url.PathEscape(key)+"/chat?wait=30s", map[string]any{"message": msg})
	if st != http.StatusOK {
		t.Fatalf("seed: chat into %s: %d %s", key, st, b)
	}
	return b
}

// chatCLI makes the operator chat into key through the CLI on the state
// dir of s and waits for the reply; it returns the run id.
func (w *world) chatCLI(t *testing.T, s surface, key, msg string) string {
	t.Helper()
	r := w.cli(t, w.dirOf(s), "chat", key, msg, "--json")
	if !r.ok {
		t.Fatalf("seed: chat %s %q on %s: exit %d: %s", key, msg, s, r.exit, r.msg)
	}
	id := firstOf([]byte(r.stdout), "runId", "run.runId")
	if id == "" {
		t.Fatalf("seed: chat %s on %s printed no runId: %s", key, s, r.stdout)
	}
	return id
}
