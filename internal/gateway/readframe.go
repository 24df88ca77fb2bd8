package gateway

import (
	"encoding/json"

	"github.com/coder/websocket"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// frameFault is what a frame that cannot be served gets: an answer to
// its request when the frame carried a usable id, and a close of the
// connection when close is set.
type frameFault struct {
	close  websocket.StatusCode // 0 keeps the connection open
	reason string
	err    error      // answered to the request
	wire   *wireError // answered as is, instead of err
}

// readRequest decodes a frame of the request loop. It needs no
// connection, so the whole decision is a pure function of the bytes.
func readRequest(typ websocket.MessageType, data []byte) (reqFrame, *frameFault) {
	var f reqFrame
	if typ != websocket.MessageText {
		return f, &frameFault{close: websocket.StatusUnsupportedData, reason: "binary frames are not supported"}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return reqFrame{}, &frameFault{close: websocket.StatusPolicyViolation, reason: "invalid frame: not JSON"}
	}
	if !idKnown(f.ID) {
		return f, &frameFault{close: websocket.StatusPolicyViolation, reason: "invalid frame: want a request {type:\"req\", id, method, params}"}
	}
	if f.Type != "req" || f.Method == "" {
		return f, &frameFault{err: domain.Invalid("invalid request frame: want {type:\"req\", id, method, params}")}
	}
	return f, nil
}

// readConnect decodes the first frame of a connection, which must be a
// `connect` request whose protocol range meets the gateway's. It returns
// the negotiated protocol version. Every fault closes the connection;
// the token is checked by the caller, which holds the credentials.
func readConnect(typ websocket.MessageType, data []byte) (reqFrame, connectParams, int64, *frameFault) {
	var p connectParams
	var f reqFrame
	if typ != websocket.MessageText {
		return f, p, 0, &frameFault{close: websocket.StatusUnsupportedData, reason: "binary frames are not supported"}
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return reqFrame{}, p, 0, &frameFault{close: websocket.StatusPolicyViolation, reason: "invalid handshake: frame is not JSON"}
	}
	refuse := func(reason string, err error) (reqFrame, connectParams, int64, *frameFault) {
		return f, p, 0, &frameFault{close: websocket.StatusPolicyViolation, reason: reason, err: err}
	}
	if f.Type != "req" || f.Method != "connect" {
		return refuse("invalid handshake", domain.Invalid("invalid handshake: first request must be connect"))
	}
	if !idKnown(f.ID) {
		return refuse("invalid handshake: request id required", nil)
	}
	if err := decodeParams("connect", f.Params, &p); err != nil {
		return refuse("invalid connect params", err)
	}
	if p.MinProtocol == nil || p.MaxProtocol == nil {
		return refuse("invalid connect params", invalidParams("connect", "minProtocol and maxProtocol required"))
	}
	lo, hi := max(*p.MinProtocol, ProtocolMin), min(*p.MaxProtocol, ProtocolMax)
	if lo > hi {
		return f, p, 0, &frameFault{close: websocket.StatusProtocolError, reason: "protocol mismatch",
			wire: &wireError{Code: CodeInvalidRequest, Message: "protocol mismatch",
				Details: map[string]any{"code": domain.CodeInvalid, "supported": []int{ProtocolMin, ProtocolMax}, "requested": []int64{*p.MinProtocol, *p.MaxProtocol}}}}
	}
	if p.Role != "" && p.Role != "operator" {
		return refuse("invalid connect params", invalidParams("connect", "role %q is not supported (switchboard accepts operator clients only)", p.Role))
	}
	return f, p, hi, nil
}

// refuseFrame answers and closes as a fault says. It reports whether the
// connection goes on.
func (c *conn) refuseFrame(f reqFrame, fault *frameFault) bool {
	if idKnown(f.ID) {
		switch {
		case fault.wire != nil:
			_ = c.write(resFrame{Type: "res", ID: f.ID, OK: false, Error: fault.wire})
		case fault.err != nil:
			_ = c.respondErr(f.ID, fault.err)
		}
	}
	if fault.close != 0 {
		c.close(fault.close, fault.reason)
		return false
	}
	return true
}
