package gateway

import (
	"testing"

	"github.com/coder/websocket"
)

// protocolCloses are the close codes a malformed frame may end a
// connection with.
var protocolCloses = map[websocket.StatusCode]bool{
	websocket.StatusProtocolError:   true,
	websocket.StatusUnsupportedData: true,
	websocket.StatusPolicyViolation: true,
}

// FuzzFrame feeds arbitrary bytes to the two frame readers, as the first
// frame of a connection and as a later one. Neither panics, a frame is
// served only when it is a request with a usable id, and every refusal
// either answers that id or closes with a protocol code.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{"type":"req","id":"c1","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"client":{"id":"fuzz","version":"1","mode":"test"}}}`,
		`{"type":"req","id":"c1","method":"connect","params":{"minProtocol":9,"maxProtocol":9}}`,
		`{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"auth":{"token":1}}}`,
		`{"type":"req","id":"c","method":"connect","params":{"minProtocol":3,"maxProtocol":4,"role":"node"}}`,
		`{"type":"req","id":"x","method":"connect","params":null}`,
		`{"type":"req","id":"1","method":"sessions.list","params":{}}`,
		`{"type":"req","id":2,"method":"agents.list"}`,
		`{"type":"event","id":"3"}`, `{}`, ``, `not json`, `[1,2,3]`, "\xff\xfe", `{"id":"\u0000"}`,
	} {
		f.Add(false, []byte(s))
	}
	f.Add(true, []byte(`{"type":"req","id":"1","method":"sessions.list"}`))
	f.Fuzz(func(t *testing.T, binary bool, data []byte) {
		typ := websocket.MessageText
		if binary {
			typ = websocket.MessageBinary
		}
		req, fault := readRequest(typ, data)
		switch {
		case fault == nil:
			if req.Type != "req" || req.Method == "" || !idKnown(req.ID) {
				t.Fatalf("served a frame that is not a request: %q", data)
			}
		case fault.close == 0:
			if !idKnown(req.ID) || fault.err == nil {
				t.Fatalf("kept the connection without answering: %q", data)
			}
		case !protocolCloses[fault.close] || fault.reason == "":
			t.Fatalf("closed with %d %q on %q", fault.close, fault.reason, data)
		}

		req, p, proto, fault := readConnect(typ, data)
		if fault == nil {
			if req.Method != "connect" || !idKnown(req.ID) || proto < ProtocolMin || proto > ProtocolMax {
				t.Fatalf("accepted %q as connect (protocol %d)", data, proto)
			}
			if p.Role != "" && p.Role != "operator" {
				t.Fatalf("accepted role %q", p.Role)
			}
			return
		}
		if !protocolCloses[fault.close] || fault.reason == "" {
			t.Fatalf("handshake refused %q without a protocol close: %d %q", data, fault.close, fault.reason)
		}
	})
}
