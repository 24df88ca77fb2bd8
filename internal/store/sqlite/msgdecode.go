package sqlite

import (
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// decodeBody decodes a stored message body into m (zero). Every read of
// message bodies goes through here, so a change of the stored form (for
// example compression) changes one function. transcript.DecodeMessage is
// encoding/json's result in one pass over the common shapes.
func decodeBody(body string, m *domain.Message) error {
	return transcript.DecodeMessage([]byte(body), m)
}
