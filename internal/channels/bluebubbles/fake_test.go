package bluebubbles

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// fakeServer is a BlueBubbles server as far as the channel uses one,
// built from the shapes in testdata/ (BlueBubbles' public REST
// documentation): the password in the query, GET /api/v1/ping and
// POST /api/v1/message/text, answered in BlueBubbles' envelope.
type fakeServer struct {
	*httptest.Server
	password string
	// answers read from testdata/
	ping, unauthorized, sendAnswer []byte
	// down makes every call answer 503 (the Mac asleep).
	down atomic.Bool

	mu    sync.Mutex
	sends []map[string]any
}

func newFakeServer(t *testing.T, password string) *fakeServer {
	f := &fakeServer{password: password, ping: testdata(t, "ping-response.json"),
		unauthorized: testdata(t, "error-unauthorized.json"), sendAnswer: testdata(t, "send-text-response.json")}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func testdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if f.down.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"status":503,"message":"Server unavailable"}`))
		return
	}
	q := r.URL.Query()
	pw := q.Get("guid")
	if pw == "" {
		pw = q.Get("password")
	}
	if pw == "" {
		pw = q.Get("token")
	}
	if pw != f.password {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write(f.unauthorized)
		return
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/api/v1/ping":
		_, _ = w.Write(f.ping)
	case r.Method == http.MethodPost && r.URL.Path == "/api/v1/message/text":
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body["chatGuid"] == nil || body["message"] == nil {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"status":400,"message":"Bad request","error":{"type":"Validation Error","error":"chatGuid and message are required"}}`))
			return
		}
		f.mu.Lock()
		f.sends = append(f.sends, body)
		f.mu.Unlock()
		var ans map[string]any
		_ = json.Unmarshal(f.sendAnswer, &ans)
		data := ans["data"].(map[string]any)
		data["text"], data["tempGuid"] = body["message"], body["tempGuid"]
		_ = json.NewEncoder(w).Encode(ans)
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"status":404,"message":"Not found"}`))
	}
}

// sent counts the sends of message to chat.
func (f *fakeServer) sent(chat, message string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, s := range f.sends {
		if s["chatGuid"] == chat && (message == "" || s["message"] == message) {
			n++
		}
	}
	return n
}
