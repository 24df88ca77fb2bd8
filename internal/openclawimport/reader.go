package openclawimport

import (
	"bufio"
	"fmt"
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
