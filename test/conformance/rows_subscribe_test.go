package conformance

import (
	"fmt"
	"testing"
	"time"
)

// Rows for the WS subscription methods: sessions.subscribe,
// sessions.unsubscribe, sessions.messages.subscribe {key} and
// sessions.messages.unsubscribe {key}. Subscriptions are a connection's
// state, so every cell dials a connection of its own (the shared ones of
// the other rows keep the broadcast).

// noSubscribe is why the other surfaces have no cell: only the WebSocket
// carries events.
const noSubscribe = "events and their subscriptions exist on the WebSocket only"

func subscribeOthers() []cell {
	return []cell{na(sCLI, noSubscribe), na(sCLIGW, noSubscribe), na(sHTTP, noSubscribe), na(sMCPStdio, noSubscribe), na(sMCPHTTP, noSubscribe)}
}

// freshWS makes one call on a new connection of token.
func freshWS(t *testing.T, w *world, token, method string, params any) outcome {
	ctx := deadline(t, 30*time.Second)
	c, err := dialWS(ctx, w.base, token)
	if err != nil {
		t.Fatalf("WS connect: %v", err)
	}
	defer c.close()
	f, err := c.call(ctx, method, params)
	if err != nil {
		t.Fatalf("WS %s: %v", method, err)
	}
	return fromWS(f)
}

func subscribeC(token, who, method string, params any) cell {
	return custom(sWS, method+" "+who, func(t *testing.T, w *world) outcome { return freshWS(t, w, token, method, params) })
}

// subscribeWS is sessions.messages.subscribe {key: ref} on a new
// connection of token (for likeUnknown).
func subscribeWS(token string) func(t *testing.T, w *world, ref string) outcome {
	return func(t *testing.T, w *world, ref string) outcome {
		return freshWS(t, w, token, "sessions.messages.subscribe", m{"key": ref})
	}
}

func subscribeRows(_ *world) []row {
	subscribed := func(v bool) map[string]string { return map[string]string{"subscribed": fmt.Sprint(v)} }
	subField := func(p []byte) map[string]string { return map[string]string{"subscribed": jsonPath(p, "subscribed")} }
	keyAndSub := func(p []byte) map[string]string {
		return map[string]string{"key": jsonPath(p, "key"), "subscribed": jsonPath(p, "subscribed")}
	}
	return []row{
		{finding: "14", name: "sessions.subscribe and sessions.unsubscribe need read scope",
			want: outcome{OK: true, Fields: subscribed(true)}, fields: subField,
			cells: append([]cell{
				subscribeC(operatorToken, "operator", "sessions.subscribe", m{}),
				subscribeC(boundToken, "bound token", "sessions.subscribe", m{}),
				subscribeC(readToken, "read token", "sessions.subscribe", m{}),
			}, subscribeOthers()...)},
		{finding: "14", name: "sessions.unsubscribe answers subscribed false",
			want: outcome{OK: true, Fields: subscribed(false)}, fields: subField,
			cells: append([]cell{
				subscribeC(operatorToken, "operator", "sessions.unsubscribe", m{}),
				subscribeC(boundToken, "bound token", "sessions.unsubscribe", m{}),
				subscribeC(readToken, "read token", "sessions.unsubscribe", m{}),
			}, subscribeOthers()...)},
		{finding: "14", name: "sessions.messages.subscribe of main answers the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:main", "subscribed": "true"}}, fields: keyAndSub,
			cells: append([]cell{
				subscribeC(operatorToken, "operator", "sessions.messages.subscribe", m{"key": "main"}),
				subscribeC(readToken, "read token", "sessions.messages.subscribe", m{"key": "main"}),
			}, subscribeOthers()...)},
		{finding: "14", name: "bound token: sessions.messages.subscribe of its own session",
			want: outcome{OK: true, Fields: map[string]string{"key": boundKey, "subscribed": "true"}}, fields: keyAndSub,
			cells: append([]cell{
				subscribeC(boundToken, "bound token", "sessions.messages.subscribe", m{"key": boundKey}),
				subscribeC(boundAdminToken, "bound admin token", "sessions.messages.subscribe", m{"key": boundKey}),
			}, subscribeOthers()...)},
		{finding: "14", name: "bound token: subscribing to a session it may not see answers like an unknown one",
			want: outcome{Code: "not_found", Msg: "No session found", Fields: map[string]string{"answers like an unknown one": "true"}},
			cells: append([]cell{
				likeUnknown(sWS, "sessions.messages.subscribe bound token", lit(foreignKey), lit(unknownKey), subscribeWS(boundToken)),
			}, subscribeOthers()...)},
		{finding: "14", name: "sessions.messages.unsubscribe answers subscribed false with the canonical key",
			want: outcome{OK: true, Fields: map[string]string{"key": "agent:main:main", "subscribed": "false"}}, fields: keyAndSub,
			cells: append([]cell{
				subscribeC(operatorToken, "operator", "sessions.messages.unsubscribe", m{"key": "main"}),
				subscribeC(readToken, "read token", "sessions.messages.unsubscribe", m{"key": "main"}),
			}, subscribeOthers()...)},
		{finding: "14", name: "sessions.messages.subscribe without a key names the field",
			want: outcome{Code: "invalid", Msg: "key"},
			cells: append([]cell{
				subscribeC(operatorToken, "operator", "sessions.messages.subscribe", m{}),
				subscribeC(boundToken, "bound token", "sessions.messages.subscribe", m{}),
				subscribeC(readToken, "read token", "sessions.messages.subscribe", m{}),
			}, subscribeOthers()...)},
	}
}
