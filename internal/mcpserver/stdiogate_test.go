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
		{"unanswered", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n"}, nil, []string{"float64:1"}},
		{"number and string ids differ", []string{`{"id":1,"method":"a"}` + "\n" + `{"id":"1","method":"b"}` + "\n"}, []string{`{"id":1.0,"result":{}}` + "\n"}, []string{"string:1"}},
		{"notifications are not pending", []string{`{"method":"notifications/initialized"}` + "\n"}, nil, nil},
		{"split across reads", []string{`{"id":5,"met`, `hod":"ping"}` + "\n"}, []string{`{"id":`, `5,"result":{}}` + "\n"}, nil},
		{"cancelled", []string{`{"id":9,"method":"tools/call"}` + "\n" + `{"method":"notifications/cancelled","params":{"requestId":9}}` + "\n"}, nil, nil},
		{"batch", []string{`[{"id":1,"method":"a"},{"id":2,"method":"b"}]` + "\n"}, []string{`[{"id":2,"result":{}}]` + "\n"}, []string{"float64:1"}},
		{"server requests do not answer", []string{`{"id":3,"method":"a"}` + "\n"}, []string{`{"id":3,"method":"ping"}` + "\n"}, []string{"float64:3"}},
		{"garbage is ignored", []string{"not json\n", `{"id":null,"method":"x"}` + "\n"}, nil, nil},
		{"overlong line is skipped", []string{`{"id":1,"method":"` + strings.Repeat("x", maxTrackedLine) + `"}` + "\n" + `{"id":2,"method":"a"}` + "\n"}, nil, []string{"float64:2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newGate()
			for _, c := range tc.in {
				g.sawInput([]byte(c))
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

// TestGateHoldsEOF: EOF waits for the answer to a request read before
// it; closing the gate releases it, so a dying connection never hangs.
func TestGateHoldsEOF(t *testing.T) {
	for _, release := range []string{"answer", "close"} {
		t.Run(release, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := newGate()
				r := gatedReader{strings.NewReader(`{"id":1,"method":"a"}` + "\n"), g}
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
					g.sawOutput([]byte(`{"id":1,"result":{}}` + "\n"))
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
