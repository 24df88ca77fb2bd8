package rowcodec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// appendMessageJSON appends m's raw transcript JSON to b: what
// json.Marshal(m) writes, field for field, except that <, > and & are not
// escaped. It runs on the writer goroutine for every stored message, where
// json.Marshal's reflection and its second pass over Content's MarshalJSON
// output cost about three times as much. TestMessageJSONMatchesMarshal
// holds the two together; a field added to domain.Message must be added
// here too (the test fails until it is).
func appendMessageJSON(b []byte, m *domain.Message) ([]byte, error) {
	var err error
	b = append(b, `{"role":`...)
	b = appendJSONString(b, m.Role)
	b = append(b, `,"content":`...)
	if b, err = appendContentJSON(b, m.Content); err != nil {
		return b, fmt.Errorf("content: %w", err)
	}
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, m.Timestamp, 10)
	if p := m.Provenance; p != nil {
		b = append(b, `,"provenance":{"kind":`...)
		b = appendJSONString(b, p.Kind)
		b = appendOptString(b, `,"originSessionId":`, p.OriginSessionID)
		b = appendOptString(b, `,"sourceSessionKey":`, p.SourceSessionKey)
		b = appendOptString(b, `,"sourceChannel":`, p.SourceChannel)
		b = appendOptString(b, `,"sourceTool":`, p.SourceTool)
		b = appendOptString(b, `,"sourceRunId":`, p.SourceRunID)
		b = appendOptString(b, `,"step":`, p.Step)
		b = append(b, '}')
	}
	b = appendOptString(b, `,"api":`, m.API)
	b = appendOptString(b, `,"provider":`, m.Provider)
	b = appendOptString(b, `,"model":`, m.Model)
	if u := m.Usage; u != nil {
		b = append(b, `,"usage":{"input":`...)
		b = strconv.AppendInt(b, u.Input, 10)
		b = append(b, `,"output":`...)
		b = strconv.AppendInt(b, u.Output, 10)
		b = append(b, `,"cacheRead":`...)
		b = strconv.AppendInt(b, u.CacheRead, 10)
		b = append(b, `,"cacheWrite":`...)
		b = strconv.AppendInt(b, u.CacheWrite, 10)
		b = append(b, `,"totalTokens":`...)
		b = strconv.AppendInt(b, u.TotalTokens, 10)
		if c := u.Cost; c != nil {
			for _, f := range []struct {
				name string
				v    float64
			}{{`,"cost":{"input":`, c.Input}, {`,"output":`, c.Output}, {`,"cacheRead":`, c.CacheRead}, {`,"cacheWrite":`, c.CacheWrite}, {`,"total":`, c.Total}} {
				b = append(b, f.name...)
				if b, err = appendJSONFloat(b, f.v); err != nil {
					return b, fmt.Errorf("usage.cost: %w", err)
				}
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	b = appendOptString(b, `,"stopReason":`, m.StopReason)
	b = appendOptString(b, `,"errorMessage":`, m.ErrorMessage)
	b = appendOptString(b, `,"toolCallId":`, m.ToolCallID)
	b = appendOptString(b, `,"toolName":`, m.ToolName)
	if m.IsError != nil {
		b = append(b, `,"isError":`...)
		b = strconv.AppendBool(b, *m.IsError)
	}
	if len(m.Details) > 0 {
		b = append(b, `,"details":`...)
		if b, err = appendRawJSON(b, m.Details); err != nil {
			return b, fmt.Errorf("details: %w", err)
		}
	}
	b = appendOptString(b, `,"kind":`, m.Kind)
	return append(b, '}'), nil
}

// appendContentJSON writes what Content.MarshalJSON writes.
func appendContentJSON(b []byte, c domain.Content) ([]byte, error) {
	if c.IsPlain() {
		return appendJSONString(b, c.Text()), nil
	}
	blocks := c.Blocks()
	b = append(b, '[')
	for i := range blocks {
		bl := &blocks[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":`...)
		b = appendJSONString(b, bl.Type)
		b = appendOptString(b, `,"text":`, bl.Text)
		b = appendOptString(b, `,"textSignature":`, bl.TextSignature)
		b = appendOptString(b, `,"thinking":`, bl.Thinking)
		b = appendOptString(b, `,"thinkingSignature":`, bl.ThinkingSignature)
		b = appendOptString(b, `,"id":`, bl.ID)
		b = appendOptString(b, `,"name":`, bl.Name)
		if len(bl.Arguments) > 0 {
			b = append(b, `,"arguments":`...)
			var err error
			if b, err = appendRawJSON(b, bl.Arguments); err != nil {
				return b, fmt.Errorf("block %d arguments: %w", i, err)
			}
		}
		b = appendOptString(b, `,"data":`, bl.Data)
		b = appendOptString(b, `,"mimeType":`, bl.MimeType)
		if bl.Omitted {
			b = append(b, `,"omitted":true`...)
		}
		if bl.Bytes != 0 {
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, int64(bl.Bytes), 10)
		}
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func appendOptString(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, name...)
	return appendJSONString(b, v)
}

// appendRawJSON appends raw compacted, refusing invalid JSON as
// json.Marshal does.
func appendRawJSON(b, raw []byte) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// appendJSONFloat formats f as encoding/json does.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, errors.New("unsupported value " + strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string the way encoding/json does
// without HTML escaping: invalid UTF-8 becomes U+FFFD, and U+2028 and
// U+2029 are escaped for JavaScript's sake.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
