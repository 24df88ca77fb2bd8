package telegram

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/channels"
)

// fakeBotAPI records the Bot API methods called and answers editMessageText
// with editStatus (200: done).
type fakeBotAPI struct {
	mu         sync.Mutex
	calls      []string
	editStatus int
}

func (f *fakeBotAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	method := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	f.mu.Lock()
	f.calls = append(f.calls, method)
	status := f.editStatus
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if method == "editMessageText" && status != http.StatusOK {
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": false, "error_code": status, "description": "Bad Request: message to edit not found"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"message_id": 9, "date": 1, "chat": map[string]any{"id": 42, "type": "private"}}})
}

func (f *fakeBotAPI) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.calls
	f.calls = nil
	return out
}

// The final reply of a streamed run edits the streamed message; one that
// cannot be edited is sent; a failure that may pass keeps the message for
// the outbox's next attempt.
func TestFinalReplyEditsTheStreamedMessage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		editStatus int
		runID      string
		wantCalls  string
		wantErr    bool
		retryCalls string // the calls of a second Send ("" for none)
	}{
		{"edited", http.StatusOK, "run-1", "editMessageText", false, ""},
		{"not editable: sent", http.StatusBadRequest, "run-1", "editMessageText,sendMessage", false, ""},
		{"provider down: kept for the retry", http.StatusBadGateway, "run-1", "editMessageText", true, "editMessageText"},
		{"another run's reply: sent", http.StatusOK, "run-2", "sendMessage", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeBotAPI{editStatus: tc.editStatus}
			srv := httptest.NewServer(f)
			defer srv.Close()
			a, err := New(Options{Raw: map[string]any{"botToken": "1:x", "apiRoot": srv.URL}})
			if err != nil {
				t.Fatal(err)
			}
			a.streams.open("run-1", &stream{to: "telegram:42", chatID: int64(42), msgID: 7, started: time.Now()})
			msg := channels.Outbound{To: "telegram:42", Text: "final", RunID: tc.runID}
			err = a.Send(context.Background(), msg)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Send: %v", err)
			}
			if got := strings.Join(f.took(), ","); got != tc.wantCalls {
				t.Errorf("calls %s, want %s", got, tc.wantCalls)
			}
			if tc.retryCalls != "" {
				f.mu.Lock()
				f.editStatus = http.StatusOK
				f.mu.Unlock()
				if err := a.Send(context.Background(), msg); err != nil {
					t.Fatalf("retry: %v", err)
				}
				if got := strings.Join(f.took(), ","); got != tc.retryCalls {
					t.Errorf("retry calls %s, want %s", got, tc.retryCalls)
				}
			}
		})
	}
}
