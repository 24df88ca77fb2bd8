package sqlite

import (
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/msgbody"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// decodeBody decodes a stored message body into m (zero). Every read of
// message bodies goes through here, so a change of the stored form changes
// one function. The body is plain JSON (rows from before schema version 6)
// or compressed (body.go); a compressed one is decompressed into scratch,
// which is returned for the next call (m keeps no reference to it).
// transcript.DecodeMessage is encoding/json's result in one pass over the
// common shapes; its fast path replaces *m whole, so callers set Seq, ID,
// ParentID, SessionID and RunID after decoding.
func decodeBody(c *msgbody.Codec, scratch, body []byte, m *domain.Message) ([]byte, error) {
	js := body
	if msgbody.IsCompressed(body) {
		var err error
		if scratch, err = c.Decode(scratch[:0], body); err != nil {
			return scratch, err
		}
		js = scratch
	}
	return scratch, transcript.DecodeMessage(js, m)
}
