package a2a

import (
	"net/http"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

func TestExtendedCardNeedsAuth(t *testing.T) {
	h := newHarness(t)
	_, public := getCard(t, h, wire.CardPath)
	if public.Capabilities.ExtendedAgentCard == nil || !*public.Capabilities.ExtendedAgentCard ||
		public.LegacyExtendedCard == nil || !*public.LegacyExtendedCard {
		t.Fatalf("the public card does not offer the extended card: %+v %v", public.Capabilities, public.LegacyExtendedCard)
	}
	for _, method := range []string{"GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard"} {
		r := h.rpc(t, "reader", "main", method, map[string]any{})
		if r.resp.Error != nil {
			t.Fatalf("%s: %+v", method, r.resp.Error)
		}
		c := decode[wire.AgentCard](t, r.resp.Result)
		if c.Name != "Main" || len(c.SupportedInterfaces) != 2 || c.SupportedInterfaces[0].URL != h.srv.URL+AgentsPrefix+"main" {
			t.Errorf("%s = %+v", method, c)
		}
		if anon := h.rpc(t, "", "main", method, map[string]any{}); anon.status != http.StatusUnauthorized || anon.resp.Error == nil {
			t.Errorf("%s without credentials: %d %+v, want 401", method, anon.status, anon.resp.Error)
		}
	}
}
