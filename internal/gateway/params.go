package gateway

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/jsonerr"
)

// decodeParams decodes a method's params object into dst. Unknown fields
// are ignored (OpenClaw clients send more than switchboard uses); wrong
// types are errors naming the field: `invalid <method> params: <what>`.
func decodeParams(method string, raw json.RawMessage, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return invalidParams(method, "params must be an object")
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return invalidParams(method, "%s", jsonerr.Describe("", raw, err))
	}
	return nil
}

// invalidParams is a validation failure of a method's params.
func invalidParams(method, format string, args ...any) error {
	return domain.Invalid("invalid %s params: %s", method, fmt.Sprintf(format, args...))
}

// requireString checks a required, non-blank string parameter.
func requireString(method, name, v string) error {
	if strings.TrimSpace(v) == "" {
		return invalidParams(method, "%s required", name)
	}
	return nil
}

// limited applies an api limit to an optional parameter (clamped or
// refused as the limit says); absent is the limit's default.
func limited(method string, l api.Limit, v *int64) (int64, error) {
	if v == nil {
		return l.Default, nil
	}
	n, err := l.Apply(*v)
	if err != nil {
		return 0, invalidParams(method, "%s", domain.ErrorMessage(err))
	}
	return n, nil
}

// orDefault returns s, or def when s is blank.
func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

// threadID reads a thread id, which OpenClaw sends as a string or a
// number; absent or null is "".
func threadID(method, name string, raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), nil
	}
	return "", invalidParams(method, "%s must be a string or a number", name)
}
