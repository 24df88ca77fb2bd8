package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// revokeeToken is a token only the revocation rows' own gateways know,
// until their configuration reload removes it.
const revokeeToken = "conf-revokee-token"

// revokeRows: a token removed from the configuration and reloaded (SIGHUP)
// ends what it holds open. A reload changes the gateway for every row, so
// each cell runs its own gateway.
func revokeRows(_ *world) []row {
	return []row{
		{finding: "28.6", name: "a token removed by a config reload has its open connection closed: credential revoked",
			want: outcome{Code: "forbidden", Msg: "credential revoked"},
			cells: []cell{
				custom(sWS, "open connection, then SIGHUP", func(t *testing.T, w *world) outcome {
					base, revoke := revocableGateway(t)
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					c, err := dialWS(ctx, base, revokeeToken)
					if err != nil {
						t.Fatal(err)
					}
					defer c.close()
					if _, err := c.call(ctx, "sessions.list", m{}); err != nil {
						t.Fatalf("before the reload: %v", err)
					}
					revoke()
					select {
					case <-c.done:
					case <-ctx.Done():
						t.Fatal("the connection stayed open after the reload")
					}
					return closeOutcome(c.err)
				}),
				na(sHTTP, "an HTTP request holds nothing open between requests; one in progress is internal/gateway TestReloadRevokesCredentials"),
				custom(sA2A, "open SendStreamingMessage stream, then SIGHUP", func(t *testing.T, w *world) outcome {
					base, revoke := revocableGateway(t)
					return revokedStream(t, base, revoke)
				}),
				na(sMCPHTTP, "MCP over HTTP is stateless: each POST is checked with the tokens in effect"),
				na(sCLI, cliIsOperator), na(sCLIGW, cliIsOperator), na(sMCPStdio, stdioIsOwner),
			}},
	}
}

// revokedStream opens an A2A stream (SSE) as revokeeToken on a run that
// takes minutes, revokes the token once the first event has arrived, and
// returns the stream's last event.
func revokedStream(t *testing.T, base string, revoke func()) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	body, _ := json.Marshal(m{"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": m{"message": m{
		"messageId": "conf-revoked-stream", "role": "ROLE_USER", "parts": []any{m{"text": "conformance progress slow"}}}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/a2a/agents/main", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+revokeeToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("A2A-Version", "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("not a stream: %d %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var last string
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if last == "" {
			revoke()
		}
		last = data
	}
	if ctx.Err() != nil {
		t.Fatal("the stream stayed open after the reload")
	}
	return fromA2A(http.StatusOK, []byte(last))
}

// closeOutcome reads how a WebSocket connection ended: 1008 (policy
// violation) is the WebSocket's forbidden, its reason the message.
func closeOutcome(err error) outcome {
	var ce websocket.CloseError
	if !errors.As(err, &ce) {
		return outcome{Code: "no close frame", Msg: fmt.Sprint(err)}
	}
	if ce.Code == websocket.StatusPolicyViolation {
		return outcome{Code: "forbidden", Msg: ce.Reason}
	}
	return outcome{Code: fmt.Sprint(ce.Code), Msg: ce.Reason}
}

// revocableGateway starts a gateway on a state dir of its own whose
// configuration also holds revokeeToken, and returns its base URL and a
// function that removes the token and reloads the configuration.
func revocableGateway(t *testing.T) (string, func()) {
	t.Helper()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "switchboard.json5")
	extra := `tokens: [
        { name: "revokee", token: "` + revokeeToken + `", scopes: ["read", "write"] },`
	withToken := strings.Replace(testConfig, "tokens: [", extra, 1)
	if withToken == testConfig {
		t.Fatal("the test config has no gateway.auth.tokens list")
	}
	if err := os.WriteFile(cfgPath, []byte(withToken), 0o600); err != nil {
		t.Fatal(err)
	}
	base := startGateway(t, dir)
	return base, func() {
		t.Helper()
		if err := os.WriteFile(cfgPath, []byte(testConfig), 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, "gateway.json"))
		if err != nil {
			t.Fatal(err)
		}
		var info struct {
			PID int `json:"pid"`
		}
		if err := json.Unmarshal(b, &info); err != nil || info.PID <= 0 {
			t.Fatalf("gateway.json = %s: no pid (%v)", b, err)
		}
		if err := syscall.Kill(info.PID, syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	}
}
