package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// TestRemoteClientAgainstThisServer drives switchboard's A2A client
// (internal/a2a/remote, the sessions_send side) against this server in
// both generations: through a 1.0 card, and through a card that offers
// only the 0.3 endpoint (url + protocolVersion), so the client's 0.3 path
// meets a real 0.3 implementation. The reply, the context and the chain
// (handed to the run) must come through either way.
func TestRemoteClientAgainstThisServer(t *testing.T) {
	h := newHarness(t)
	const token = "client-token"
	legacyCard := func(w http.ResponseWriter, r *http.Request, endpoint string) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"name":"main","description":"d","url":%q,"protocolVersion":"0.3.0","preferredTransport":"JSONRPC","version":"1","capabilities":{},"defaultInputModes":[],"defaultOutputModes":[],"skills":[]}`, endpoint)
	}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/legacy-card.json" {
			legacyCard(w, r, srv.URL+AgentsPrefix+"main")
			return
		}
		if r.Header.Get("Authorization") == "Bearer "+token {
			r.Header.Set("X-Test-Principal", "operator")
		}
		h.a2a.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	c := remote.New(remote.Options{})
	for _, tc := range []struct {
		card, version, ctxID string
	}{
		{srv.URL + AgentsPrefix + "main" + wire.CardPath, wire.Version, "ctx-ten"},
		{srv.URL + "/legacy-card.json", wire.LegacyVersion, "ctx-three"},
	} {
		chain := []string{"agent:elsewhere:main", "agent:peer:" + tc.ctxID}
		res, err := c.Send(context.Background(), remote.Remote{AllowPrivateNetwork: true, ID: "peer", CardURL: tc.card, Token: token},
			remote.Message{ContextID: tc.ctxID, Text: "hello " + tc.version, Chain: chain})
		if err != nil {
			t.Fatalf("%s: %v", tc.version, err)
		}
		if res.Version != tc.version || res.Reply != "echo: hello "+tc.version || res.TaskID == "" {
			t.Fatalf("%s: result = %+v", tc.version, res)
		}
		run, err := h.eng.GetRun(t.Context(), principals["operator"], res.TaskID)
		if err != nil || run.SessionKey != SessionKey("main", tc.ctxID) {
			t.Fatalf("%s: run = %+v, %v", tc.version, run, err)
		}
		var spec struct {
			Chain []string `json:"chain"`
		}
		if err := json.Unmarshal(run.Spec, &spec); err != nil || !reflect.DeepEqual(spec.Chain, chain) {
			t.Fatalf("%s: chain on the run = %v (%v)", tc.version, spec.Chain, err)
		}
	}

	// A wrong token is the client's unauthorized error, naming the remote.
	_, err := c.Send(context.Background(), remote.Remote{AllowPrivateNetwork: true, ID: "peer", CardURL: srv.URL + AgentsPrefix + "main" + wire.CardPath, Token: "wrong"},
		remote.Message{ContextID: "x", Text: "hi"})
	if err == nil || !errors.Is(err, remote.ErrUnauthorized) {
		t.Fatalf("wrong token: %v", err)
	}
}
