package conformance

import (
	"net/http"
	"net/url"
	"testing"
)

// betaMarker is the text seeded into beta's main session: a read of
// "main" as agent:beta:main must find it.
const betaMarker = "beta-marker-7f3a"

// seed makes the sessions rows read, before any row runs: on the served
// state dir the bound token's session, a foreign session and both mains;
// on the in-process one both mains.
func (w *world) seed(t *testing.T) {
	t.Helper()
	w.chatHTTP(t, foreignKey, "secret of another session")
	w.chatHTTP(t, boundKey, "hello bound")
	w.chatHTTP(t, "agent:main:main", "hello main")
	w.chatHTTP(t, betaMain, betaMarker)
	w.chatCLI(t, sCLI, "agent:main:main", "hello main")
	w.chatCLI(t, sCLI, betaMain, betaMarker)
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
