package msgbody

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// samples are bodies as the stores write them (rowcodec.AppendMessageJSON).
var samples = []string{
	`{"role":"user","content":"What is the weather?","timestamp":1775037601000}`,
	`{"role":"user","content":[{"type":"text","text":"please look at the failing build and tell me which test broke"}],"timestamp":1795618510294}`,
	`{"role":"assistant","content":[{"type":"text","text":"Let me check."},{"type":"toolCall","id":"call_1","name":"weather","arguments":{"city":"Oslo"}}],"timestamp":1775037602000,"api":"openai-responses","provider":"openai","model":"gpt-4.1-mini","usage":{"input":120,"output":30,"cacheRead":0,"cacheWrite":0,"totalTokens":150,"cost":{"input":0.0001,"output":0.0002,"cacheRead":0,"cacheWrite":0,"total":0.0003}},"stopReason":"toolUse"}`,
	`{"role":"toolResult","content":[{"type":"text","text":"4°C, rain"}],"timestamp":1775037603000,"toolCallId":"call_1","toolName":"weather","isError":false}`,
	`{"role":"assistant","content":[{"type":"text","text":"It is 4°C and raining in Oslo."}],"timestamp":1775037604000,"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":160,"output":12,"cacheRead":0,"cacheWrite":0,"totalTokens":172,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop"}`,
}

func TestRoundTrip(t *testing.T) {
	c := Default()
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 70_000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	cases := map[string]struct {
		body       string
		compressed bool
	}{
		"empty object": {`{}`, false},
		"tiny":         {`{"role":"user","content":"hi","timestamp":1}`, true},
		"big text":     {`{"role":"user","content":"` + strings.Repeat("lorem ipsum dolor sit amet ", 40_000) + `","timestamp":1}`, true},
		// Incompressible: stored as it is.
		"random": {`{"role":"user","content":"` + string(random) + `"}`, false},
	}
	for i, s := range samples {
		cases[string(rune('a'+i))+" sample"] = struct {
			body       string
			compressed bool
		}{s, true}
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			prefix := []byte("keep")
			enc := c.Encode(prefix, []byte(tc.body))
			if !bytes.HasPrefix(enc, []byte("keep")) {
				t.Fatalf("Encode dropped dst's bytes")
			}
			enc = enc[4:]
			if IsCompressed(enc) != tc.compressed {
				t.Errorf("compressed = %v, want %v (%d -> %d bytes)", IsCompressed(enc), tc.compressed, len(tc.body), len(enc))
			}
			if len(enc) > len(tc.body) {
				t.Errorf("stored %d bytes for %d of JSON", len(enc), len(tc.body))
			}
			dec, err := c.Decode([]byte("x"), enc)
			if err != nil {
				t.Fatal(err)
			}
			if string(dec) != "x"+tc.body {
				t.Errorf("round trip changed the body (%d -> %d bytes)", len(tc.body), len(dec)-1)
			}
		})
	}
}

// TestSamplesShrink: the dictionary earns its keep on typical messages,
// each compressed on its own.
func TestSamplesShrink(t *testing.T) {
	c := Default()
	var in, out int
	for _, s := range samples {
		in += len(s)
		out += len(c.Encode(nil, []byte(s)))
	}
	if out*2 > in {
		t.Errorf("samples: %d bytes of JSON stored in %d; want at most half", in, out)
	}
	// Without the dictionary the same frames are much larger.
	plain, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false))
	if err != nil {
		t.Fatal(err)
	}
	var nodict int
	for _, s := range samples {
		nodict += len(plain.EncodeAll([]byte(s), nil)) - 3 // magic, as Encode drops it, less the format byte
	}
	if out >= nodict {
		t.Errorf("with the dictionary %d bytes, without %d", out, nodict)
	}
	t.Logf("%d bytes of JSON: %d stored (%d without the dictionary)", in, out, nodict)
}

func TestDecodeRejects(t *testing.T) {
	c := Default()
	good := c.Encode(nil, []byte(samples[2]+strings.Repeat(" ", zstdMin)))
	short := c.Encode(nil, []byte(samples[2]))
	if good[0] != FormatZstd || short[0] != FormatS2 {
		t.Fatalf("formats %#x and %#x, want zstd for %d bytes and S2 for %d", good[0], short[0], len(samples[2])+zstdMin, len(samples[2]))
	}
	// A frame that claims a huge decoded size (FCS 8 bytes) and has none.
	huge := []byte{FormatZstd, 0xe4, 0x01, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
	for name, body := range map[string][]byte{
		"format byte only": {FormatZstd},
		"truncated":        good[:len(good)/2],
		"flipped":          append(append([]byte{}, good[:5]...), append([]byte{good[5] ^ 0xff}, good[6:]...)...),
		"unknown dict":     {FormatZstd, 0x21, 0x07, 0x05, 0x28, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'},
		"huge":             huge,
		"s2 huge":          {FormatS2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x00},
		// S2 only ever holds bodies under zstdMin: a claim of 200 MB (or of
		// exactly zstdMin) is refused before anything is allocated for it.
		"s2 200 MB claim":  {FormatS2, 0x80, 0x80, 0x80, 0x64, 0x00, 0x01, 0x02},
		"s2 zstdMin claim": {FormatS2, 0x80, 0x08, 0x00},
		"s2 truncated":     short[:len(short)-3],
		"s2 no length":     {FormatS2},
	} {
		t.Run(name, func(t *testing.T) {
			out, err := c.Decode(nil, body)
			if err == nil {
				// A flipped byte may still decode; it must not pass as the original.
				if string(out) == samples[2] {
					t.Fatalf("corrupt body decoded to the original")
				}
				return
			}
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("error %v is not ErrCorrupt", err)
			}
		})
	}
	// The refusal happens before the allocation: decoding the 200 MB claim
	// leaves dst as small as it was.
	claim := []byte{FormatS2, 0x80, 0x80, 0x80, 0x64, 0x00}
	var buf []byte
	for range 3 {
		buf, _ = c.Decode(buf[:0], claim)
	}
	if cap(buf) >= zstdMin {
		t.Errorf("refusing an S2 length claim grew dst to %d bytes", cap(buf))
	}
}

func TestPlainPassesThrough(t *testing.T) {
	out, err := Default().Decode(nil, []byte(samples[0]))
	if err != nil || string(out) != samples[0] {
		t.Fatalf("Decode(plain) = %q, %v", out, err)
	}
	if IsCompressed(nil) || IsCompressed([]byte("{")) {
		t.Error("IsCompressed of plain JSON")
	}
}

// FuzzDecode: no stored bytes make Decode panic, and whatever Encode
// writes decodes to what it was given.
func FuzzDecode(f *testing.F) {
	c := Default()
	for _, s := range samples {
		f.Add([]byte(s))
		f.Add(c.Encode(nil, []byte(s)))
	}
	f.Add([]byte{FormatZstd})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = c.Decode(nil, b)
		enc := c.Encode(nil, b)
		dec, err := c.Decode(nil, enc)
		if IsCompressed(b) {
			return // not JSON: a plain body never starts with a format byte
		}
		if err != nil || !bytes.Equal(dec, b) {
			t.Fatalf("round trip of %q: %q, %v", b, dec, err)
		}
	})
}

func BenchmarkEncode(b *testing.B) {
	c := Default()
	var buf []byte
	var n int
	for b.Loop() {
		for _, s := range samples {
			buf = c.Encode(buf[:0], []byte(s))
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/msg")
}

func BenchmarkDecode(b *testing.B) {
	c := Default()
	var enc [][]byte
	for _, s := range samples {
		enc = append(enc, c.Encode(nil, []byte(s)))
	}
	var buf []byte
	var n int
	for b.Loop() {
		for _, e := range enc {
			var err error
			if buf, err = c.Decode(buf[:0], e); err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/msg")
}
