package openclawimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/transcript"
)

// agentJSON writes agent's sessions as agents/<agent>/sessions/sessions.json
// and one <sessionId>.jsonl transcript per session.
func (w *exportWriter) agentJSON(agent string, sessions []domain.Session) error {
	dir := filepath.Join(w.root, "agents", agent, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	finalDir := filepath.Join(w.final, "agents", agent, "sessions")
	index := make(map[string]entry, len(sessions))
	err := w.each(sessions, func(s *domain.Session, msgs []domain.TranscriptMessage) ([]byte, error) {
		h := transcript.Header{ID: s.SessionID, Timestamp: transcript.FormatTime(headerTime(s, msgs, w.opts.Now)), Cwd: w.final}
		return transcript.EncodeStored(h, msgs)
	}, func(x *exported) error {
		name := x.s.SessionID + ".jsonl"
		if err := os.WriteFile(filepath.Join(dir, name), x.data, 0o600); err != nil {
			return err
		}
		e := exportEntry(x.s)
		e.SessionFile = filepath.Join(finalDir, name)
		index[x.s.Key] = e
		return nil
	})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(index); err != nil {
		return fmt.Errorf("agent %s: sessions.json: %w", agent, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), buf.Bytes(), 0o600); err != nil {
		return err
	}
	w.progress()
	return nil
}

// headerTime is when a transcript began: the session's creation, else its
// first message, else now.
func headerTime(s *domain.Session, msgs []domain.TranscriptMessage, now func() time.Time) time.Time {
	switch {
	case s.CreatedAt > 0:
		return time.UnixMilli(s.CreatedAt)
	case len(msgs) > 0 && msgs[0].Timestamp > 0:
		return time.UnixMilli(msgs[0].Timestamp)
	}
	return now()
}

func msTime(ms int64) time.Time { return time.UnixMilli(ms) }
