package transcript

import (
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// DecodeMessage decodes one message object (a stored message body, or a
// transcript entry's "message") into m, which must be zero. The one-pass
// scanner of fastentry.go reads the shapes switchboard and OpenClaw write;
// anything else goes to encoding/json, so results and errors are always
// encoding/json's (TestDecodeMessageMatchesJSON, FuzzDecodeMessage).
// Listing sessions with messageLimit decodes a thousand bodies per call,
// and encoding/json validating each body before decoding it, then
// decoding its content again, was a third of that listing's CPU.
func DecodeMessage(b []byte, m *domain.Message) error {
	s := scanner{b: b}
	var fast domain.Message
	if s.message(&fast) {
		s.ws()
		if s.i == len(s.b) {
			*m = fast
			return nil
		}
	}
	return json.Unmarshal(b, m)
}
