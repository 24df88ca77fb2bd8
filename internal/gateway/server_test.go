package gateway_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/gateway"
)

func TestCheckListenAddr(t *testing.T) {
	tests := []struct {
		addr    string
		token   bool
		wantErr string
	}{
		{"127.0.0.1:18789", false, ""},
		{"[::1]:18789", false, ""},
		{"localhost:0", false, ""},
		{"0.0.0.0:18789", false, "refusing to listen on 0.0.0.0:18789"},
		{":18789", false, "all interfaces"},
		{"192.168.1.5:80", false, "without an auth token"},
		{"0.0.0.0:18789", true, ""},
		{"nonsense", false, "want host:port"},
	}
	for _, tt := range tests {
		err := gateway.CheckListenAddr(tt.addr, tt.token)
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("CheckListenAddr(%q, %v) = %v, want %q", tt.addr, tt.token, err, tt.wantErr)
		}
	}
}

func TestListenAndServeRefusesOpenAddressWithoutToken(t *testing.T) {
	e := newEnv(t, envOptions{})
	srv, err := gateway.New(gateway.Options{Engine: e.eng, Config: e.cfg})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.ListenAndServe(t.Context(), "0.0.0.0:0")
	if err == nil || !strings.Contains(err.Error(), "SWITCHBOARD_GATEWAY_TOKEN") {
		t.Fatalf("ListenAndServe = %v", err)
	}
	if _, err := gateway.New(gateway.Options{Config: e.cfg}); err == nil {
		t.Fatal("New without an engine succeeded")
	}
}

// TestServeStopsWithContext checks that ending Serve's context is a
// graceful shutdown: clients get the shutdown event and Serve returns nil.
func TestServeStopsWithContext(t *testing.T) {
	e := newEnv(t, envOptions{})
	srv, err := gateway.New(gateway.Options{Engine: e.eng, Config: e.cfg})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := srv.Listen(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()

	other := &env{t: t, eng: e.eng, ws: "ws://" + ln.Addr().String() + "/", hc: e.hc}
	w, _ := other.connect(t, nil)
	cancel()
	w.wait(func(f frame) bool { return f.Event == "shutdown" })
	if code, _ := w.closed(); code != websocket.StatusGoingAway {
		t.Fatalf("closed with %d", code)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return")
	}
	if err := srv.Serve(context.Background(), ln); err == nil {
		t.Fatal("Serve after shutdown succeeded")
	}
}
