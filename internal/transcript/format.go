package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Version is the transcript format version written in headers.
const Version = 3

// Entry types of transcript lines.
const (
	TypeSession    = "session"
	TypeMessage    = "message"
	TypeCompaction = "compaction"
)

// isoLayout matches JavaScript's Date.toISOString, which OpenClaw writes.
const isoLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime formats t the way OpenClaw writes transcript timestamps
// (UTC, millisecond precision, "Z" suffix).
func FormatTime(t time.Time) string { return t.UTC().Format(isoLayout) }

// Encode returns a whole transcript file: h's header line (Type and
// Version filled in when empty) and one entry line per message, as
// Mirror.Append would write them to a new file.
func Encode(h Header, msgs []domain.Message) ([]byte, error) {
	if h.Type == "" {
		h.Type = TypeSession
	}
	if h.Version == 0 {
		h.Version = Version
	}
	line, err := encodeLine(h)
	if err != nil {
		return nil, fmt.Errorf("transcript header: %w", err)
	}
	now, _ := time.Parse(time.RFC3339Nano, h.Timestamp)
	buf := bytes.NewBuffer(line)
	if err := appendMessages(buf, msgs, now); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// appendMessages encodes msgs as entry lines onto buf. Messages without an
// ID get a random one (chained to the previous message when ParentID is
// empty too); messages without a Timestamp are stamped with now.
func appendMessages(buf *bytes.Buffer, msgs []domain.Message, now time.Time) error {
	// One encoder for the batch, writing into buf: a line's bytes are
	// written only once it encoded whole (json.Encoder marshals first).
	enc := lineEncoder(buf)
	prevID := ""
	for i := range msgs {
		msg := &msgs[i]
		id, parent := msg.ID, msg.ParentID
		if id == "" {
			id = domain.NewShortID(4)
			if parent == "" {
				parent = prevID
			}
		}
		ts := now
		if msg.Timestamp != 0 {
			ts = time.UnixMilli(msg.Timestamp)
		}
		if err := appendMessageLine(enc, msg, id, parent, ts); err != nil {
			return err
		}
		prevID = id
	}
	return nil
}

// headerLine encodes a session header line, newline included.
func headerLine(sessionID string, ts time.Time, cwd string) ([]byte, error) {
	h := Header{Type: TypeSession, Version: Version, ID: sessionID, Timestamp: FormatTime(ts), Cwd: cwd}
	return encodeLine(h)
}

// messageLine is the wire shape of one message entry. ParentID is a pointer
// so a root entry says "parentId":null like OpenClaw does.
type messageLine struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp string          `json:"timestamp"`
	Message   *domain.Message `json:"message"`
}

// appendMessageLine encodes msg as one entry line (newline included)
// through enc (lineEncoder).
func appendMessageLine(enc *json.Encoder, msg *domain.Message, id, parentID string, ts time.Time) error {
	l := messageLine{Type: TypeMessage, ID: id, Timestamp: FormatTime(ts), Message: msg}
	if parentID != "" {
		l.ParentID = &parentID
	}
	if err := enc.Encode(l); err != nil {
		return fmt.Errorf("message %s: %w", id, err)
	}
	return nil
}

// encodeLine marshals v without HTML escaping where it can (transcripts
// are read by people and grep, not embedded in HTML) and ends it with a
// newline. Message content marshals itself with json.Marshal, so its text
// may still carry \u003c-style escapes; both forms are valid JSON.
func encodeLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := lineEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// lineEncoder is encodeLine's encoder writing to w: one JSON value and a
// newline per Encode, without HTML escaping.
func lineEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
