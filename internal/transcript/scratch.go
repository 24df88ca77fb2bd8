package transcript

import (
	"io"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Scratch is memory a caller that reads many transcripts one after the
// other (the OpenClaw import) reuses from file to file: the entries slice
// and the messages the entries point to. Growing a new slice and
// allocating a message per entry for every file were a fifth of the bytes
// an import allocated, and the garbage collector's work grows with those
// bytes. The zero Scratch is ready to use; it is not safe for concurrent
// use.
type Scratch struct {
	entries []Entry
	msgs    msgSlab
	branch  branchScratch
}

// ActiveBranch is the package's ActiveBranch working in sc's memory: the
// result is valid until the next ReadScratch or ActiveBranch with sc.
func (sc *Scratch) ActiveBranch(entries []Entry) []Entry {
	return activeBranch(entries, &sc.branch)
}

// ReadScratch is Read through sc: the entries it returns, and the messages
// they point to, are valid until the next ReadScratch with sc. A caller
// copies what it keeps (Messages does).
func ReadScratch(r io.Reader, sc *Scratch) (Header, []Entry, Stats, error) {
	// The previous file's entries and messages go, even where this file
	// is shorter.
	clear(sc.entries)
	sc.msgs.reset()
	h, entries, st, err := read(r, MaxLineBytes, sc.entries[:0], &sc.msgs)
	sc.entries = entries
	return h, entries, st, err
}

// msgSlabChunk is how many messages one chunk of a msgSlab holds.
const msgSlabChunk = 64

// msgSlab hands out zeroed messages from chunks it keeps for reuse. A
// message's address stays put (chunks never move), so entries may point
// into it.
type msgSlab struct {
	chunks [][]domain.Message
	n      int // messages handed out since reset
}

// next returns a zeroed message: the slab's next one, or a new one when
// s is nil.
func (s *msgSlab) next() *domain.Message {
	if s == nil {
		return new(domain.Message)
	}
	c, i := s.n/msgSlabChunk, s.n%msgSlabChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, make([]domain.Message, msgSlabChunk))
	}
	s.n++
	return &s.chunks[c][i]
}

// reset zeroes the messages handed out, for next to hand out again.
func (s *msgSlab) reset() {
	for c := 0; c*msgSlabChunk < s.n; c++ {
		clear(s.chunks[c][:min(msgSlabChunk, s.n-c*msgSlabChunk)])
	}
	s.n = 0
}
