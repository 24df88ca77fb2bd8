package attachments

import (
	"bytes"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// CheckEntries checks the shape of an attachments parameter before it is
// decoded: absent, null or an array whose every entry is an object with a
// string content. An entry without content (absent or null) is refused as
// `attachments[<i>].content required` rather than taken as an empty file,
// and a content of another JSON type as `attachments[<i>].content must be a
// string`, so the caller learns which entry and field to fix. Errors are
// CodeInvalid *domain.Error values.
func CheckEntries(raw json.RawMessage) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return domain.Invalid("attachments must be an array")
	}
	for i, it := range items {
		var m map[string]json.RawMessage
		if it = bytes.TrimSpace(it); len(it) == 0 || it[0] != '{' || json.Unmarshal(it, &m) != nil {
			return domain.Invalid("attachments[%d] must be an object", i)
		}
		c, ok := m["content"]
		if c = bytes.TrimSpace(c); !ok || string(c) == "null" {
			return domain.Invalid("attachments[%d].content required", i)
		}
		if c[0] != '"' {
			return domain.Invalid("attachments[%d].content must be a string", i)
		}
	}
	return nil
}
