package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
)

// BenchmarkHTTPSessionsList measures tools/call sessions_list over the
// HTTP handler on loopback, with ten sessions in the store: once through
// the SDK client, once as a plain JSON-RPC POST.
func BenchmarkHTTPSessionsList(b *testing.B) {
	e := newEngine(b, "agent")
	for i := range 10 {
		chat(b, e, fmt.Sprintf("agent:main:s%d", i), "hello")
	}
	ts := serveHTTP(b, New(e, Options{}), map[string]api.Principal{"tok": api.Operator()})
	url := ts.URL + "/mcp"

	b.Run("sdk-client", func(b *testing.B) {
		cs := connectHTTP(b, url, "tok")
		params := &mcp.CallToolParams{Name: api.ToolSessionsList, Arguments: map[string]any{}}
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(context.Background(), params)
			if err != nil || res.IsError {
				b.Fatalf("call: %v %v", err, res)
			}
		}
	})
	b.Run("plain-post", func(b *testing.B) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		client := &http.Client{Transport: tr}
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sessions_list","arguments":{}}}`
		b.ReportAllocs()
		var lat []time.Duration
		defer func() {
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			if len(lat) > 0 {
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			}
		}()
		for b.Loop() {
			start := time.Now()
			req, _ := http.NewRequest("POST", url, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer tok")
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
			lat = append(lat, time.Since(start))
		}
	})
}
