package urlguard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
)

func TestCheckURL(t *testing.T) {
	strict, open := New(Policy{}), New(Policy{AllowPrivateNetwork: true})
	for _, tc := range []struct {
		url              string
		strictOK, openOK bool
	}{
		{"https://agents.example.com/.well-known/agent-card.json", true, true},
		{"http://93.184.216.34:8080/x", true, true},
		{"http://127.0.0.1:9/x", false, true},
		{"http://localhost/x", false, true},
		{"http://[::1]/x", false, true},
		{"http://10.1.2.3/x", false, true},
		{"http://192.168.0.1/x", false, true},
		{"http://169.254.169.254/latest/meta-data", false, true},
		{"http://[fe80::1]/x", false, true},
		{"http://100.64.0.1/x", false, true},
		{"http://0.0.0.0/x", false, true},
		{"http://[::ffff:127.0.0.1]/x", false, true},
		{"ftp://agents.example.com/x", false, false},
		{"file:///etc/passwd", false, false},
		{"https://user:pw@agents.example.com/x", false, false},
		{"/relative", false, false},
	} {
		if _, err := strict.CheckURL(tc.url); (err == nil) != tc.strictOK {
			t.Errorf("strict CheckURL(%s) = %v, want ok=%v", tc.url, err, tc.strictOK)
		}
		if _, err := open.CheckURL(tc.url); (err == nil) != tc.openOK {
			t.Errorf("open CheckURL(%s) = %v, want ok=%v", tc.url, err, tc.openOK)
		}
	}
}

// TestClientChecksTheDialledAddress: a name that resolves to loopback is
// refused when dialled, and the request never reaches the server.
func TestClientChecksTheDialledAddress(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "http://localhost:"+strconv.Itoa(int(port))+"/", nil)
	if _, err := New(Policy{}).Client(0).Do(req); err == nil || !Refused(err) {
		t.Errorf("strict client to a name on loopback = %v, want refused", err)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("server saw %d requests", n)
	}
	resp, err := New(Policy{AllowPrivateNetwork: true}).Client(0).Do(req)
	if err != nil {
		t.Fatalf("open client: %v", err)
	}
	resp.Body.Close()
}

// TestClientReturnsRedirects: a redirect is the answer, not followed.
func TestClientReturnsRedirects(t *testing.T) {
	var followed atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			followed.Store(true)
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	}))
	defer srv.Close()
	resp, err := New(Policy{AllowPrivateNetwork: true}).Client(0).Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || followed.Load() {
		t.Errorf("status %d followed=%v, want the 302 itself", resp.StatusCode, followed.Load())
	}
}
