package mcpserver

import (
	"io"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"
)

func TestGateAccounting(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in, out []string // chunks, in order: all input, then all output
		pending []string
	}{
		{"answered", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"}, []string{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"}, nil},
		{"unanswered", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"}, nil, []string{"int64:1"}},
		{"number and string ids differ", []string{`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + `{"jsonrpc":"2.0","id":"1","method":"b"}` + "\n"}, []string{`{"jsonrpc":"2.0","id":1.0,"result":{}}` + "\n"}, []string{"string:1"}},
		{"notifications are not pending", []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"}, nil, nil},
		{"split across reads", []string{`{"jsonrpc":"2.0","id":5,"met`, `hod":"ping"}` + "\n"}, []string{`{"jsonrpc":"2.0","id":`, `5,"result":{}}` + "\n"}, nil},
		{"cancelled", []string{`{"jsonrpc":"2.0","id":9,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}` + "\n"}, nil, nil},
		{"batch", []string{`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]` + "\n"}, []string{`[{"jsonrpc":"2.0","id":2,"result":{}}]` + "\n"}, []string{"int64:1"}},
		{"server requests do not answer", []string{`{"jsonrpc":"2.0","id":3,"method":"a"}` + "\n"}, []string{`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n"}, []string{"int64:3"}},
		{"refused lines are not pending", []string{"not json\n", `{"id":4,"method":"x"}` + "\n", `{"jsonrpc":"2.0","id":null,"method":"x"}` + "\n"}, nil, nil},
		{"overlong line is refused", []string{`{"jsonrpc":"2.0","id":1,"method":"` + strings.Repeat("x", maxTrackedLine) + `"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"a"}` + "\n"}, nil, []string{"int64:2"}},
		// Found by FuzzStdioLine: the gate must read a request as the SDK does,
		// or EOF cuts off an answer the SDK owes (or waits for one it never sends).
		{"duplicate key of another type", []string{`{"jsonrpc":"2.0","id":2,"method":3,"method":"ng"}` + "\n"}, nil, []string{"int64:2"}},
		{"params of another shape", []string{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":[]}` + "\n"}, nil, []string{"int64:3"}},
		{"fractional id, answered as the SDK rounds it", []string{`{"jsonrpc":"2.0","id":2.5,"method":"x"}` + "\n"}, []string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"m"}}` + "\n"}, nil},
		{"cancelled by a fractional id", []string{`{"jsonrpc":"2.0","id":4,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4.0}}` + "\n"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate(io.Discard)
			g.admit.initialized = true
			for _, c := range tc.in {
				if err := g.sawInput([]byte(c)); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range tc.out {
				g.sawOutput([]byte(c))
			}
			var got []string
			for k := range g.pending {
				got = append(got, k)
			}
			if diff := cmp.Diff(tc.pending, got); diff != "" {
				t.Errorf("pending (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGateAdmission: which lines reach the SDK, and what the gate answers
// in place of the SDK for the others.
func TestGateAdmission(t *testing.T) {
	const (
		initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
		list       = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	)
	for _, tc := range []struct {
		name     string
		version  string // the protocol version the server answered initialize with
		in       []string
		passed   []string // lines the SDK reads
		answered []string // the gate's answers
	}{
		{"initialize, then requests", "", []string{initialize, list}, []string{initialize, list}, nil},
		{"ping and notifications before initialize", "",
			[]string{`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
			[]string{`{"jsonrpc":"2.0","id":"p","method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`}, nil},
		{"a request before initialize", "", []string{list, initialize, list}, []string{initialize, list},
			[]string{`{"jsonrpc":"2.0","id":2,"error":{"code":-32002,"message":"server not initialized: send initialize before tools/list"}}`}},
		{"a sessionless request needs no initialize", "",
			[]string{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
			[]string{`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`}, nil},
		{"not JSON", "", []string{"hello", `{"jsonrpc":"2.0","id":7,`, initialize}, []string{initialize}, []string{
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`}},
		{"trailing data", "", []string{initialize + " x"}, nil,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not JSON"}}`}},
		{"JSON but not JSON-RPC", "", []string{`{"id":8,"method":"initialize"}`, `42`, `{"jsonrpc":"2.0","id":{},"method":"x"}`}, nil, []string{
			`{"jsonrpc":"2.0","id":8,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message must be a JSON object"}}`,
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not a JSON-RPC 2.0 message (an id is a string or a number; a response has an id)"}}`}},
		{"a bad message in a batch", "", []string{`[` + initialize + `,{"id":9}]`}, nil,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request in batch: \"jsonrpc\" must be \"2.0\""}}`}},
		{"empty batch", "", []string{`[]`}, nil,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: empty batch"}}`}},
		{"batch in an old protocol", "2025-03-26", []string{`[` + initialize + `,` + list + `]`}, []string{`[` + initialize + `,` + list + `]`}, nil},
		{"batch in a protocol without batches", "2025-06-18", []string{`[` + list + `]`}, nil,
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported in protocol version 2025-06-18"}}`}},
		{"a notification in a batch", "2025-03-26", []string{initialize, `[` + list + `,{"jsonrpc":"2.0","method":"notifications/initialized"}]`}, []string{initialize},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a batch may hold only requests with an id; send notifications/initialized on a line of its own"}}`}},
		{"an id used twice in a batch", "2025-03-26", []string{initialize, `[` + list + `,` + list + `]`}, []string{initialize},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request in batch: id 2 is already in use by a request not yet answered"}}`}},
		{"a batch reusing a pending id", "2025-03-26", []string{initialize, list, `[` + list + `]`}, []string{initialize, list},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request in batch: id 2 is already in use by a request not yet answered"}}`}},
		{"blank lines pass", "", []string{"", "  "}, []string{"", "  "}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			g := newGate(&out)
			g.version = tc.version
			if err := g.sawInput([]byte(strings.Join(tc.in, "\n") + "\n")); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.passed, lines(string(g.ready))); diff != "" {
				t.Errorf("passed to the SDK (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.answered, lines(out.String())); diff != "" {
				t.Errorf("answered by the gate (-want +got):\n%s", diff)
			}
		})
	}
}

// lines splits newline-terminated text into its lines (nil for none).
func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// TestGateHoldsEOF: EOF waits for the answer to a request read before
// it; closing the gate releases it, so a dying connection never hangs.
func TestGateHoldsEOF(t *testing.T) {
	for _, release := range []string{"answer", "close"} {
		t.Run(release, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate(io.Discard)
				g.admit.initialized = true
				r := gatedReader{strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n"), g}
				buf := make([]byte, 100)
				if n, err := r.Read(buf); n == 0 || err != nil {
					t.Fatalf("first read = %d, %v", n, err)
				}
				done := make(chan error, 1)
				go func() {
					_, err := r.Read(buf)
					done <- err
				}()
				synctest.Wait() // the reader is blocked, or has returned
				select {
				case err := <-done:
					t.Fatalf("EOF passed on with a request pending (err %v)", err)
				default:
				}
				if release == "answer" {
					g.sawOutput([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
				} else {
					r.Close()
				}
				if err := <-done; err != io.EOF {
					t.Fatalf("read after %s = %v, want EOF", release, err)
				}
			})
		})
	}
}
