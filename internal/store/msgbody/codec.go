// Package msgbody encodes the stored body of a message: its transcript JSON,
// compressed with a dictionary trained on transcript JSON (dict.zstd, made
// by ./gendict). Both stores keep bodies in this form.
//
// A body is one of:
//   - plain JSON: every row written before compression, and any message
//     that compression does not make smaller;
//   - FormatS2 and an S2 block over the dictionary's content: messages
//     shorter than zstdMin, most of them, where zstd's fixed cost per frame
//     outweighs its smaller output (docs/decisions.md#narrow-message-rows-and-compressed-bodies);
//   - FormatZstd and a zstd frame with the dictionary, its 4-byte magic
//     number left out: longer messages, where zstd's Huffman-coded
//     literals pay.
//
// JSON never starts with a byte below 0x09, so the first byte tells the
// forms apart and old rows read as they are.
package msgbody

import (
	_ "embed"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// Formats, the first byte of a compressed body. A later format takes the
// next free value; JSON never starts below 0x09 (whitespace), so
// 0x03–0x08 are free for that.
const (
	// FormatZstd: a zstd frame, magic number stripped, no checksum, the
	// dictionary named by the frame's dictionary id.
	FormatZstd = 0x01
	// FormatS2: an S2 block (its decoded length first) encoded against
	// the content of dictionary 1.
	FormatS2 = 0x02
)

// zstdMin is the shortest JSON encoded with zstd; shorter goes to S2, so
// Decode refuses an S2 body that claims zstdMin bytes or more. Raising it
// keeps old rows readable; lowering it would not.
const zstdMin = 1024

// MaxDecoded bounds what one body may decode to, so a corrupt row cannot
// make a reader allocate without end. The largest message a surface
// accepts is far smaller; imported tool results with images are the big
// ones.
const MaxDecoded = 256 << 20

// maxPooled is the largest scratch frame Decode keeps for reuse: a rare
// huge body (an image in a tool result) should not stay in memory.
const maxPooled = 64 << 10

// zstdMagic is the frame magic number the stored form leaves out.
var zstdMagic = [4]byte{0x28, 0xb5, 0x2f, 0xfd}

// dict is the trained dictionary (id 1); see gendict for how it is made.
//
//go:embed dict.zstd
var dict []byte

// ErrCorrupt is wrapped by Decode's error for a body that is not plain JSON
// and does not decompress.
var ErrCorrupt = errors.New("corrupt compressed message body")

// Codec compresses and decompresses bodies. Its encoder and decoder are
// safe for concurrent use and keep their own pools of state, so callers
// share one Codec (Default) rather than making one per message.
type Codec struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
	s2  *s2.Dict
	// bufs holds the scratch frames Decode rebuilds (magic + stored bytes).
	bufs sync.Pool
}

// New makes a Codec over the embedded dictionary.
func New() (*Codec, error) {
	enc, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(zstd.SpeedFastest),
		zstd.WithEncoderDict(dict),
		zstd.WithEncoderCRC(false),
		zstd.WithSingleSegment(true),
		zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithLowerEncoderMem(true))
	if err != nil {
		return nil, fmt.Errorf("msgbody: encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderDicts(dict),
		zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)),
		zstd.WithDecoderMaxMemory(MaxDecoded),
		zstd.IgnoreChecksum(true))
	if err != nil {
		enc.Close()
		return nil, fmt.Errorf("msgbody: decoder: %w", err)
	}
	zd, err := zstd.InspectDictionary(dict)
	if err != nil {
		return nil, fmt.Errorf("msgbody: dictionary: %w", err)
	}
	s2d := s2.MakeDict(zd.Content(), nil)
	if s2d == nil {
		return nil, errors.New("msgbody: dictionary content too short for S2")
	}
	return &Codec{enc: enc, dec: dec, s2: s2d}, nil
}

// Default returns the process's shared Codec, made on first use. It holds
// no state a caller can change: only the zstd pools behind Encode and
// Decode.
var Default = sync.OnceValue(func() *Codec {
	c, err := New()
	if err != nil {
		// The dictionary is embedded and checked by the tests: a failure
		// here is a broken build, not bad input.
		panic(err)
	}
	return c
})

// Encode appends the stored form of the JSON body js to dst: compressed
// when that is smaller, else js as it is.
func (c *Codec) Encode(dst, js []byte) []byte {
	start := len(dst)
	if len(js) < zstdMin {
		// s2's Encode writes from the start of the slice it is given:
		// give it dst's spare capacity after the format byte.
		dst = slices.Grow(append(dst, FormatS2), s2.MaxEncodedLen(len(js)))
		out := c.s2.Encode(dst[start+1:cap(dst)], js)
		dst = dst[:start+1+len(out)]
		if len(dst)-start >= len(js) {
			return append(dst[:start], js...)
		}
		return dst
	}
	dst = append(dst, FormatZstd)
	dst = c.enc.EncodeAll(js, dst)
	frame := dst[start+1:]
	if len(frame) < len(zstdMagic) || [4]byte(frame[:4]) != zstdMagic {
		// EncodeAll always writes the magic; keep the plain form if not.
		return append(dst[:start], js...)
	}
	// Drop the magic: move the rest of the frame down 4 bytes.
	n := copy(frame, frame[4:])
	dst = dst[:start+1+n]
	if len(dst)-start >= len(js) {
		return append(dst[:start], js...)
	}
	return dst
}

// IsCompressed reports whether body is in a compressed form.
func IsCompressed(body []byte) bool {
	return len(body) > 0 && (body[0] == FormatZstd || body[0] == FormatS2)
}

// Decode appends the JSON of a stored body to dst. A plain body is
// appended as it is.
func (c *Codec) Decode(dst, body []byte) ([]byte, error) {
	if !IsCompressed(body) {
		return append(dst, body...), nil
	}
	if body[0] == FormatS2 {
		n, err := s2.DecodedLen(body[1:])
		if err != nil {
			return dst, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if n >= zstdMin {
			// Encode gives S2 only what is shorter than zstdMin, so a
			// longer claim is corrupt: refuse it before allocating it,
			// so a tiny corrupt row cannot make a reader allocate much.
			return dst, fmt.Errorf("%w: S2 body decodes to %d bytes, S2 holds fewer than %d", ErrCorrupt, n, zstdMin)
		}
		start := len(dst)
		dst = slices.Grow(dst, n)
		out, err := c.s2.Decode(dst[start:start+n], body[1:])
		if err != nil {
			return dst[:start], fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		return dst[:start+len(out)], nil
	}
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	frame := append(append((*bp)[:0], zstdMagic[:]...), body[1:]...)
	out, err := c.dec.DecodeAll(frame, dst)
	if cap(frame) <= maxPooled {
		*bp = frame
		c.bufs.Put(bp)
	}
	if err != nil {
		return dst, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return out, nil
}
