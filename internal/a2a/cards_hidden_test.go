package a2a

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// TestHiddenCardsAnswerAsUnknown: without a credential only the default
// agent's card is served; every other agent (research here) answers
// exactly as an id that does not exist — same status, same headers that
// matter, same body — on its card path, its endpoint and any other path
// under it, so agent ids cannot be enumerated. A credential reads every
// exposed agent's card.
func TestHiddenCardsAnswerAsUnknown(t *testing.T) {
	h := newHarness(t)
	do := func(method, path, who string, body []byte) (int, string, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, h.srv.URL+path, bytes.NewReader(body))
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if who != "" {
			req.Header.Set("X-Test-Principal", who)
		}
		res, err := h.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), b
	}
	rpc := []byte(`{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}`)
	for _, probe := range []struct {
		method, tail string
		body         []byte
	}{
		{http.MethodGet, wire.CardPath, nil},
		{http.MethodHead, wire.CardPath, nil},
		{http.MethodGet, "", nil},
		{http.MethodPost, "", rpc},
		{http.MethodGet, "/other", nil},
	} {
		hs, hct, hb := do(probe.method, AgentsPrefix+"research"+probe.tail, "", probe.body)
		us, uct, ub := do(probe.method, AgentsPrefix+"ghost"+probe.tail, "", probe.body)
		if hs != us || hct != uct || !bytes.Equal(hb, ub) {
			t.Errorf("%s %s: hidden agent answered %d %q %q, unknown id %d %q %q", probe.method, probe.tail, hs, hct, hb, us, uct, ub)
		}
		if hs == http.StatusOK {
			t.Errorf("%s %s: a hidden agent answered 200 without a credential: %s", probe.method, probe.tail, hb)
		}
	}
	if st, c := getCard(t, h, AgentsPrefix+"main"+wire.CardPath); st != http.StatusOK || c.Name != "Main" {
		t.Errorf("the default agent's card without a credential: %d %+v", st, c)
	}
	if st, c := getCard(t, h, AgentsPrefix+"research"+wire.CardPath, "reader"); st != http.StatusOK || c.Name != "research" {
		t.Errorf("research's card with a credential: %d %+v", st, c)
	}
	if st, _ := getCard(t, h, AgentsPrefix+"ghost"+wire.CardPath, "reader"); st != http.StatusNotFound {
		t.Errorf("an unknown id with a credential: %d, want 404", st)
	}
}
