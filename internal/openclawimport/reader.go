package openclawimport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"

	"github.com/switchboard-go/switchboard/internal/transcript"
)

// transcriptBufSize is the read buffer of a planning worker, the size
// transcript.Read would otherwise allocate afresh for every file.
const transcriptBufSize = 64 << 10

// transcriptReader is a planning worker's means of reading transcripts:
// one read buffer and one transcript.Scratch (entries and their
// messages), reused from file to file instead of allocated per file.
type transcriptReader struct {
	rd *bufio.Reader
	sc transcript.Scratch
	ev eventReader
	br bytes.Reader
}

func newTranscriptReader() *transcriptReader {
	return &transcriptReader{rd: bufio.NewReaderSize(nil, transcriptBufSize)}
}

// read is transcript.ReadFile of path through tr's buffers. The entries
// it returns are valid until the next read: the caller copies what it
// keeps (transcript.Messages does).
func (tr *transcriptReader) read(path string) (transcript.Header, []transcript.Entry, transcript.Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return transcript.Header{}, nil, transcript.Stats{}, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	tr.rd.Reset(f)
	defer tr.rd.Reset(nil)
	h, entries, st, err := transcript.ReadScratch(tr.rd, &tr.sc)
	if err != nil {
		return h, entries, st, fmt.Errorf("transcript %s: %w", path, err)
	}
	return h, entries, st, nil
}

// readEvents parses the transcript of sessionID kept in a's
// transcript_events, as read does a file. A session without events (its
// window was created, no turn stored yet) reads as no transcript.
func (tr *transcriptReader) readEvents(ctx context.Context, a *agentDB, sessionID string) (transcript.Header, []transcript.Entry, transcript.Stats, error) {
	buf, err := tr.ev.read(ctx, a, sessionID)
	if err != nil {
		return transcript.Header{}, nil, transcript.Stats{}, err
	}
	if len(buf) == 0 {
		return transcript.Header{}, nil, transcript.Stats{}, fs.ErrNotExist
	}
	tr.br.Reset(buf)
	tr.rd.Reset(&tr.br)
	defer tr.rd.Reset(nil)
	h, entries, st, err := transcript.ReadScratch(tr.rd, &tr.sc)
	if err != nil {
		return h, entries, st, fmt.Errorf("transcript of session %s in %s: %w", sessionID, a.path, err)
	}
	return h, entries, st, nil
}

func (tr *transcriptReader) close() { tr.ev.close() }
