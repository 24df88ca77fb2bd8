package redact

import (
	"bytes"
	"encoding/json"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Defaults of HistoryOptions.
const (
	DefaultHistoryMaxBytes = 80 * 1024
	DefaultTextMaxChars    = 4000
)

// TooLargePlaceholder is the text of the single message History returns
// when even the newest message alone exceeds the byte cap.
const TooLargePlaceholder = "[sessions_history omitted: message too large]"

// redactWindowMargin is how far past the kept prefix a long text is
// still redacted; see sanitizeText.
const redactWindowMargin = 32 << 10

// HistoryOptions tune History. Zero fields take the defaults.
type HistoryOptions struct {
	// MaxBytes caps the JSON size of the returned messages array.
	MaxBytes int
	// MaxChars caps each text field, in UTF-16 code units.
	MaxChars int
}

// HistoryResult is the sanitized history and what sanitizing did.
type HistoryResult struct {
	Messages []domain.Message `json:"messages"`
	// Truncated is DroppedMessages || ContentTruncated.
	Truncated bool `json:"truncated"`
	// DroppedMessages reports that old messages were dropped to fit
	// MaxBytes, or that the placeholder replaced an oversized message.
	DroppedMessages bool `json:"droppedMessages"`
	// ContentTruncated reports that a field was cut or removed (long text,
	// usage, details, thinking signatures, inline image data).
	ContentTruncated bool `json:"contentTruncated"`
	// ContentRedacted reports that a credential was masked.
	ContentRedacted bool `json:"contentRedacted"`
	// Bytes is the JSON size of Messages.
	Bytes int `json:"bytes"`
}

// History sanitizes transcript messages for sessions_history with New's
// patterns; see Redactor.History.
func History(msgs []domain.Message, opts HistoryOptions) HistoryResult {
	return New().History(msgs, opts)
}

// History sanitizes msgs (oldest first) for sessions_history. Each message
// loses usage, details, thinking signatures and inline image data (images
// keep omitted:true and bytes = the base64 length); every text field
// (string content, text and thinking blocks, errorMessage) has credentials
// masked and is then cut to MaxChars UTF-16 units plus TruncationMarker;
// string values inside tool-call arguments have credentials masked. Then the
// oldest messages are dropped until the JSON array fits MaxBytes; if the
// newest message alone does not fit, the result is a single assistant
// placeholder. msgs and the messages in it are never modified.
func (r Redactor) History(msgs []domain.Message, opts HistoryOptions) HistoryResult {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultHistoryMaxBytes
	}
	if opts.MaxChars <= 0 {
		opts.MaxChars = DefaultTextMaxChars
	}
	var res HistoryResult
	clean := make([]domain.Message, len(msgs))
	for i, m := range msgs {
		var f flags
		clean[i] = r.sanitizeMessage(m, opts.MaxChars, &f)
		res.ContentTruncated = res.ContentTruncated || f.truncated
		res.ContentRedacted = res.ContentRedacted || f.redacted
	}

	sizes := make([]int, len(clean))
	for i, m := range clean {
		b, err := json.Marshal(m)
		if err != nil {
			// Unreachable for sanitized messages; an unencodable message
			// cannot be returned, so let the cap drop it.
			sizes[i] = opts.MaxBytes + 1
			continue
		}
		sizes[i] = len(b)
	}
	total := 2 // "[]"
	for i, n := range sizes {
		total += n
		if i > 0 {
			total++ // ","
		}
	}
	start := 0
	for start < len(clean)-1 && total > opts.MaxBytes {
		total -= sizes[start] + 1
		start++
	}
	res.Messages = clean[start:]
	res.DroppedMessages = start > 0
	if total > opts.MaxBytes && len(clean) > 0 {
		last := clean[len(clean)-1]
		res.Messages = []domain.Message{{
			Role:      domain.RoleAssistant,
			Content:   domain.TextContent(TooLargePlaceholder),
			Timestamp: last.Timestamp,
		}}
		res.DroppedMessages = true
		b, _ := json.Marshal(res.Messages)
		total = len(b)
	}
	res.Bytes = total
	res.Truncated = res.DroppedMessages || res.ContentTruncated
	return res
}

// flags collects what sanitizing one message did.
type flags struct {
	truncated, redacted bool
}

// sanitizeMessage returns a sanitized copy of m.
func (r Redactor) sanitizeMessage(m domain.Message, maxChars int, f *flags) domain.Message {
	// Usage, details and signatures are metadata the reader does not need;
	// dropping them is not truncation (OpenClaw counts it; the flag would
	// then be set for nearly every history and tell the reader nothing).
	out := m
	out.Usage = nil
	out.Details = nil
	out.ErrorMessage = r.sanitizeText(out.ErrorMessage, maxChars, f)

	if m.Content.IsPlain() {
		out.Content = domain.TextContent(r.sanitizeText(m.Content.Text(), maxChars, f))
		return out
	}
	src := m.Content.Blocks()
	if src == nil {
		return out
	}
	blocks := make([]domain.Block, len(src))
	for i, b := range src {
		b.Text = r.sanitizeText(b.Text, maxChars, f)
		b.Thinking = r.sanitizeText(b.Thinking, maxChars, f)
		b.ThinkingSignature = ""
		if b.Data != "" {
			b.Bytes = len(b.Data)
			b.Data = ""
			b.Omitted = true
			f.truncated = true
		}
		if len(b.Arguments) > 0 {
			b.Arguments = r.sanitizeArguments(b.Arguments, f)
		}
		blocks[i] = b
	}
	out.Content = domain.BlockContent(blocks...)
	return out
}

// sanitizeText masks credentials in s and cuts it to maxChars UTF-16 units.
//
// Redaction runs before the cut, so a secret straddling the cut is still
// masked. A very long text is redacted only up to a window well past the
// cut, which bounds the work per field; when masking shrank the window
// until the cut comes close to its end, the whole text is redacted instead.
func (r Redactor) sanitizeText(s string, maxChars int, f *flags) string {
	if s == "" {
		return s
	}
	window := 3*maxChars + redactWindowMargin
	if len(s) > window {
		red, redacted := r.Text(clipBytes(s, window))
		if kept, cut := utf16Prefix(red, maxChars); cut && len(red)-len(kept) > redactWindowMargin/2 {
			f.redacted = f.redacted || redacted
			f.truncated = true
			return kept + TruncationMarker
		}
	}
	red, redacted := r.Text(s)
	f.redacted = f.redacted || redacted
	kept, cut := utf16Prefix(red, maxChars)
	if !cut {
		return red
	}
	f.truncated = true
	return kept + TruncationMarker
}

// sanitizeArguments masks credentials in the string values of tool-call
// arguments. Arguments that are not valid JSON become a JSON string of
// their redacted text, so the message still encodes.
func (r Redactor) sanitizeArguments(args json.RawMessage, f *flags) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		red, redacted := r.Text(string(args))
		f.redacted = f.redacted || redacted
		b, _ := json.Marshal(red)
		return b
	}
	changed := false
	v = r.redactValue(v, &changed)
	if !changed {
		return args
	}
	f.redacted = true
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}

// redactValue returns v with credentials in every string value masked. It
// edits maps and slices in place: v is a fresh decode owned by the caller.
func (r Redactor) redactValue(v any, changed *bool) any {
	switch t := v.(type) {
	case string:
		red, ok := r.Text(t)
		if ok {
			*changed = true
		}
		return red
	case map[string]any:
		for k, e := range t {
			t[k] = r.redactValue(e, changed)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = r.redactValue(e, changed)
		}
		return t
	}
	return v
}
