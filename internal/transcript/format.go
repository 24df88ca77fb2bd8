package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/store/rowcodec"
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
	line, now, err := fileHeader(h)
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(line)
	if err := appendMessages(buf, msgs, now); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fileHeader is a new file's header line (Type and Version filled in when
// empty) and the header's time, which stamps messages that have none.
func fileHeader(h Header) ([]byte, time.Time, error) {
	if h.Type == "" {
		h.Type = TypeSession
	}
	if h.Version == 0 {
		h.Version = Version
	}
	line, err := encodeLine(h)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("transcript header: %w", err)
	}
	now, _ := time.Parse(time.RFC3339Nano, h.Timestamp)
	return line, now, nil
}

// appendMessages encodes msgs as entry lines onto buf. Messages without an
// ID get a random one (chained to the previous message when ParentID is
// empty too); messages without a Timestamp are stamped with now. Each
// line is built whole before it is written to buf, so a message that
// fails to encode leaves no partial line.
func appendMessages(buf *bytes.Buffer, msgs []domain.Message, now time.Time) error {
	prevID := ""
	var line []byte
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
		var err error
		if line, err = appendMessageLine(line[:0], msg, id, parent, ts); err != nil {
			return err
		}
		buf.Write(line)
		prevID = id
	}
	return nil
}

// headerLine encodes a session header line, newline included.
func headerLine(sessionID string, ts time.Time, cwd string) ([]byte, error) {
	h := Header{Type: TypeSession, Version: Version, ID: sessionID, Timestamp: FormatTime(ts), Cwd: cwd}
	return encodeLine(h)
}

// appendMessageLine appends msg as one entry line (newline included) to
// b: what json.Marshal writes for
//
//	{"type":"message","id":…,"parentId":…,"timestamp":…,"message":…}
//
// with a null parentId for a root entry, as OpenClaw writes it, and
// without HTML escaping. It is written by hand, as the store writes a
// message's JSON (rowcodec.AppendMessageJSON): reflection cost most of an
// export's encoding.
func appendMessageLine(b []byte, msg *domain.Message, id, parentID string, ts time.Time) ([]byte, error) {
	b = appendLineStart(b, id, parentID, ts)
	b, err := rowcodec.AppendMessageJSON(b, msg)
	if err != nil {
		return b, fmt.Errorf("message %s: %w", id, err)
	}
	return append(b, '}', '\n'), nil
}

// appendLineStart appends an entry line up to its message's JSON.
func appendLineStart(b []byte, id, parentID string, ts time.Time) []byte {
	b = append(b, `{"type":"`+TypeMessage+`","id":`...)
	b = rowcodec.AppendJSONString(b, id)
	b = append(b, `,"parentId":`...)
	if parentID == "" {
		b = append(b, "null"...)
	} else {
		b = rowcodec.AppendJSONString(b, parentID)
	}
	b = append(b, `,"timestamp":"`...)
	b = ts.UTC().AppendFormat(b, isoLayout)
	return append(b, `","message":`...)
}

// EncodeStored is Encode of messages as the store holds them: each
// message's JSON goes into its line as it is, and is not checked. A
// message without an ID gets a random one, as in Encode.
func EncodeStored(h Header, msgs []domain.TranscriptMessage) ([]byte, error) {
	b, now, err := fileHeader(h)
	if err != nil {
		return nil, err
	}
	size := len(b)
	for i := range msgs {
		size += len(msgs[i].JSON) + 128
	}
	b = slices.Grow(b, size-len(b))
	prevID := ""
	for i := range msgs {
		m := &msgs[i]
		id, parent := m.ID, m.ParentID
		if id == "" {
			id = domain.NewShortID(4)
			if parent == "" {
				parent = prevID
			}
		}
		ts := now
		if m.Timestamp != 0 {
			ts = time.UnixMilli(m.Timestamp)
		}
		b = appendLineStart(b, id, parent, ts)
		b = append(b, m.JSON...)
		b = append(b, '}', '\n')
		prevID = id
	}
	return b, nil
}

// encodeLine marshals v without HTML escaping (transcripts are read by
// people and grep, not embedded in HTML) and ends it with a newline.
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
