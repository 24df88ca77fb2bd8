package gateway_test

import (
	"net/http"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
	"github.com/switchboard-go/switchboard/internal/config"
)

// TestAuditTokenUsesAndEarlyRefusals: a WS connection is a token use, an
// HTTP token's first request of the day is one and its next is not, and a
// refusal by the gateway's early scope check is in the chain too.
func TestAuditTokenUsesAndEarlyRefusals(t *testing.T) {
	e := newEnv(t, envOptions{token: "main-token", tokens: []config.TokenBinding{
		{Name: "viewer", Token: "viewer-token", Scopes: []string{"read"}},
	}})
	w, _ := e.connect(t, nil)
	defer w.close()
	if e.doToken(t, "viewer-token", http.MethodGet, "/api/sessions", nil, nil) != http.StatusOK ||
		e.doToken(t, "viewer-token", http.MethodGet, "/api/sessions", nil, nil) != http.StatusOK {
		t.Fatal("viewer list refused")
	}
	if code := e.doToken(t, "viewer-token", http.MethodGet, "/api/audit", nil, nil); code != http.StatusForbidden {
		t.Fatalf("viewer audit.list: %d", code)
	}
	if res := w.call("audit.chain.list", map[string]any{"limit": 100}); !res.OK {
		t.Fatalf("operator audit.chain.list: %s", res)
	}
	var page api.AuditChainResult
	w.ok("audit.chain.list", map[string]any{"limit": 100}, &page)
	uses := map[string]int{}
	refusals := 0
	for _, r := range page.Records {
		switch r.Kind {
		case audit.KindTokenUse:
			uses[r.Actor+" "+r.Surface]++
		case audit.KindRefusal:
			refusals++
			if r.Actor != "viewer" || r.Op != string(api.OpAuditList) || r.Surface != "http" {
				t.Errorf("refusal record %+v", r)
			}
		}
	}
	if uses["operator ws"] != 1 || uses["viewer http"] != 1 || refusals != 1 {
		t.Fatalf("token uses %v, refusals %d: %+v", uses, refusals, page.Records)
	}
	if _, brk := audit.Verify(page.Anchor, page.Head, page.Records); brk != nil {
		t.Fatalf("verify: %v", brk)
	}
}
