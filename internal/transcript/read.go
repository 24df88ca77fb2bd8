package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Limits of the reader.
const (
	// MaxLineBytes is the longest line ReadFile accepts; longer lines
	// (megabytes of inline images, say) are skipped, not fatal.
	MaxLineBytes = 64 << 20
	// MaxSkipsRecorded bounds Stats.Skips; Stats.Skipped keeps counting.
	MaxSkipsRecorded = 1000
)

// Reasons a line is skipped.
const (
	ReasonInvalidJSON   = "invalid JSON"
	ReasonTruncated     = "truncated last line"
	ReasonInvalidEntry  = "invalid entry"
	ReasonMissingType   = "missing type"
	ReasonNoMessage     = "message entry without a valid message"
	ReasonExtraHeader   = "extra session header"
	ReasonLineTooLong   = "line too long"
	ReasonInvalidHeader = "invalid header"
)

// Header is a transcript's first line.
type Header struct {
	Type          string `json:"type"`
	Version       int    `json:"version"`
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	ParentSession string `json:"parentSession,omitempty"`
}

// Entry is one transcript line after the header.
type Entry struct {
	// Line is the 1-based line number in the file.
	Line      int
	Type      string
	ID        string
	ParentID  string
	Timestamp string
	// Time is Timestamp parsed (zero when absent or unparsable).
	Time time.Time
	// Message is set for entries of type "message"; its ID and ParentID
	// are the entry's.
	Message *domain.Message
	// Raw is the whole line for entries of other types (compaction,
	// custom, model_change, …), which callers may interpret themselves.
	Raw json.RawMessage
}

// Skip says why one line was skipped.
type Skip struct {
	Line   int
	Reason string // one of the Reason constants
	Detail string
}

func (s Skip) String() string {
	if s.Detail == "" {
		return fmt.Sprintf("line %d: %s", s.Line, s.Reason)
	}
	return fmt.Sprintf("line %d: %s: %s", s.Line, s.Reason, s.Detail)
}

// Stats counts what ReadFile saw.
type Stats struct {
	// Lines counts non-blank lines, the header included.
	Lines    int
	Entries  int
	Messages int
	Skipped  int
	// Skips lists the first MaxSkipsRecorded skipped lines.
	Skips []Skip
}

func (s *Stats) skip(line int, reason, detail string) {
	s.Skipped++
	if len(s.Skips) < MaxSkipsRecorded {
		s.Skips = append(s.Skips, Skip{Line: line, Reason: reason, Detail: detail})
	}
}

// ReadFile parses the OpenClaw JSONL transcript at path. The first
// non-blank line must be a session header, else the file is refused. Later
// lines that cannot be parsed are skipped and recorded in Stats.
func ReadFile(path string) (Header, []Entry, Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, nil, Stats{}, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	h, entries, st, err := Read(f)
	if err != nil {
		return h, entries, st, fmt.Errorf("transcript %s: %w", path, err)
	}
	return h, entries, st, nil
}

// Read parses a transcript from r; see ReadFile.
func Read(r io.Reader) (Header, []Entry, Stats, error) {
	return read(r, MaxLineBytes, nil, nil)
}

func read(r io.Reader, maxLine int, entries []Entry, slab *msgSlab) (Header, []Entry, Stats, error) {
	var (
		h       Header
		st      Stats
		lr      = lineReader{r: bufio.NewReaderSize(r, 64<<10), max: maxLine}
		seenHdr bool
	)
	for {
		line, n, last, tooLong, err := lr.next()
		if err != nil {
			return h, entries, st, err
		}
		if line == nil && !tooLong {
			break
		}
		if tooLong {
			st.Lines++
			if !seenHdr {
				return h, entries, st, fmt.Errorf("line %d: header is longer than %d bytes", n, lr.max)
			}
			st.skip(n, ReasonLineTooLong, fmt.Sprintf("over %d bytes", lr.max))
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		st.Lines++
		if !seenHdr {
			if err := parseHeader(line, &h); err != nil {
				return h, entries, st, fmt.Errorf("line %d: %w", n, err)
			}
			seenHdr = true
			continue
		}
		e, reason, detail := parseEntryIn(line, n, slab)
		if reason != "" {
			if last && reason == ReasonInvalidJSON {
				reason = ReasonTruncated
			}
			st.skip(n, reason, detail)
			continue
		}
		st.Entries++
		if e.Message != nil {
			st.Messages++
		}
		entries = append(entries, e)
	}
	if !seenHdr {
		return h, entries, st, errors.New("empty transcript: no session header")
	}
	return h, entries, st, nil
}

func parseHeader(line []byte, h *Header) error {
	if err := json.Unmarshal(line, h); err != nil {
		return fmt.Errorf("first line is not a session header: %w", err)
	}
	if h.Type != TypeSession {
		return fmt.Errorf("first line is not a session header: type is %q, want %q", h.Type, TypeSession)
	}
	return nil
}

// wireEntry decodes any entry line in one pass; Message is only filled
// for lines that carry one.
type wireEntry struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	ParentID  *string         `json:"parentId"`
	Timestamp json.RawMessage `json:"timestamp"`
	Message   *domain.Message `json:"message"`
}

// parseEntry decodes one entry line; a non-empty reason means skip it.
func parseEntry(line []byte, n int) (e Entry, reason, detail string) {
	return parseEntryIn(line, n, nil)
}

// parseEntryIn is parseEntry taking the message of a line the fast path
// decodes from slab (nil: a new one).
func parseEntryIn(line []byte, n int, slab *msgSlab) (e Entry, reason, detail string) {
	w, ok := fastEntryIn(line, slab)
	if !ok {
		w = wireEntry{}
		if err := json.Unmarshal(line, &w); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) || !json.Valid(line) {
				return e, ReasonInvalidJSON, err.Error()
			}
			return e, ReasonInvalidEntry, err.Error()
		}
	}
	e = Entry{Line: n, Type: w.Type, ID: w.ID}
	if w.ParentID != nil {
		e.ParentID = *w.ParentID
	}
	e.Timestamp, e.Time = parseTimestamp(w.Timestamp)
	switch w.Type {
	case "":
		return e, ReasonMissingType, ""
	case TypeSession:
		return e, ReasonExtraHeader, ""
	case TypeMessage:
		if w.Message == nil || w.Message.Role == "" {
			return e, ReasonNoMessage, "missing message or role"
		}
		m := w.Message
		m.ID, m.ParentID = e.ID, e.ParentID
		if m.Timestamp == 0 && !e.Time.IsZero() {
			m.Timestamp = e.Time.UnixMilli()
		}
		e.Message = m
	default:
		e.Raw = append(json.RawMessage(nil), line...)
	}
	return e, "", ""
}

// parseTimestamp accepts an ISO string (what OpenClaw writes) or a number
// of Unix milliseconds.
func parseTimestamp(raw json.RawMessage) (string, time.Time) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", time.Time{}
	}
	if raw[0] == '"' {
		sc := scanner{b: raw}
		s, ok := sc.str()
		if !ok && json.Unmarshal(raw, &s) != nil {
			return "", time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return s, time.Time{}
		}
		return s, t
	}
	var ms float64
	if json.Unmarshal(raw, &ms) != nil {
		return "", time.Time{}
	}
	t := time.UnixMilli(int64(ms))
	return FormatTime(t), t
}

// lineReader yields lines of any length up to MaxLineBytes without the
// fixed token limit of bufio.Scanner.
type lineReader struct {
	r    *bufio.Reader
	max  int // longest accepted line
	n    int
	long []byte // accumulates lines longer than the buffer
}

// next returns the next line (without the newline), its 1-based number,
// whether it was the file's last line without a trailing newline, and
// whether it was longer than MaxLineBytes (then line is nil). At EOF line
// is nil. The returned slice is valid until the next call.
func (lr *lineReader) next() (line []byte, n int, last, tooLong bool, err error) {
	lr.long = lr.long[:0]
	size := 0
	for {
		chunk, err := lr.r.ReadSlice('\n')
		size += len(chunk)
		switch {
		case err == nil:
			lr.n++
			if tooLong || size > lr.max {
				return nil, lr.n, false, true, nil
			}
			if len(lr.long) > 0 {
				lr.long = append(lr.long, chunk...)
				return lr.long, lr.n, false, false, nil
			}
			return chunk, lr.n, false, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if size > lr.max {
				tooLong = true
				lr.long = lr.long[:0]
				continue
			}
			lr.long = append(lr.long, chunk...)
		case errors.Is(err, io.EOF):
			if size == 0 {
				return nil, lr.n, false, false, nil
			}
			lr.n++
			if tooLong || size > lr.max {
				return nil, lr.n, true, true, nil
			}
			lr.long = append(lr.long, chunk...)
			return lr.long, lr.n, true, false, nil
		default:
			return nil, lr.n, false, false, fmt.Errorf("read line %d: %w", lr.n+1, err)
		}
	}
}
