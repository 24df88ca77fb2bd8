package attachments

import (
	"bytes"
	"encoding/json"
)

// RedactedContent replaces attachment content in persisted tool calls.
const RedactedContent = "__SWITCHBOARD_REDACTED__"

// RedactArguments returns sessions_spawn tool-call arguments fit to persist:
// every attachments[i] keeps only name, encoding and mimeType, and its
// content becomes RedactedContent. An attachments value that is not an
// array, or an entry that is not an object, is replaced by RedactedContent
// whole, since it may hold file data in an unknown shape. Arguments without
// attachments are returned unchanged; arguments that are not a JSON object
// are returned unchanged too (they name no attachments to find).
func RedactArguments(args json.RawMessage) json.RawMessage {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(args, &top); err != nil || top == nil {
		return args
	}
	raw, ok := top["attachments"]
	if !ok || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return args
	}
	redacted, _ := json.Marshal(RedactedContent)
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		top["attachments"] = redacted
		return marshalOr(top, args)
	}
	out := make([]any, 0, len(entries))
	for _, e := range entries {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(e, &obj); err != nil || obj == nil {
			out = append(out, RedactedContent)
			continue
		}
		kept := map[string]json.RawMessage{"content": redacted}
		for _, k := range []string{"name", "encoding", "mimeType"} {
			if v, ok := obj[k]; ok {
				kept[k] = v
			}
		}
		out = append(out, kept)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return args
	}
	top["attachments"] = b
	return marshalOr(top, args)
}

// marshalOr marshals v, falling back to fallback: values decoded from
// valid JSON always re-encode, so the fallback is unreachable in practice.
func marshalOr(v any, fallback json.RawMessage) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return fallback
	}
	return b
}
