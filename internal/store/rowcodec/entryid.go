package rowcodec

import (
	"encoding/hex"
	"strconv"
)

// Entry ids are the 8-hex ids of OpenClaw transcript entries and must be
// unique within a transcript (a key's generation). Random ids would need an
// index to catch the collisions that a long transcript makes likely (one in
// two at about 77,000 messages), and that index costs a random page write
// per message. Instead the id of the message with sequence number seq is
//
//	mix32(uint32(seq)) XOR salt
//
// where mix32 is a bijection on 32-bit integers and salt is drawn at random
// when the generation gets its first message. Seqs are unique per key, so
// the ids of a generation are unique (until a key passes 2^32 messages),
// they look random, and the salt need not be stored: it is the parent's id
// XOR mix32(parent's seq).
//
// Generations that already had random ids before schema version 2 are
// listed in legacy_entry_ids, which still checks their new ids.

// mix32 is MurmurHash3's finalizer: each step (xor-shift, multiplication
// by an odd constant) is invertible, so the whole is a bijection.
func mix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x85ebca6b
	x ^= x >> 13
	x *= 0xc2b2ae35
	x ^= x >> 16
	return x
}

// entryID returns the id of the message at seq in a generation with salt.
func entryID(seq int64, salt uint32) string {
	v := mix32(uint32(seq)) ^ salt
	b := [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
	return hex.EncodeToString(b[:])
}

// saltOf recovers the salt of a generation from one of its ids and that
// message's seq; ok is false when id is not 8 hex digits.
func saltOf(id string, seq int64) (salt uint32, ok bool) {
	v, ok := parseHex32(id)
	if !ok {
		return 0, false
	}
	return v ^ mix32(uint32(seq)), true
}

func parseHex32(s string) (uint32, bool) {
	if len(s) != 8 {
		return 0, false
	}
	v, err := strconv.ParseUint(s, 16, 32)
	return uint32(v), err == nil
}

// unmix32 inverts mix32: each step undone in reverse order (an xor-shift
// by s ≥ 16 is its own inverse, by 13 needs the shifts 13 and 26, and a
// multiplication by an odd constant is undone by its inverse mod 2^32).
func unmix32(x uint32) uint32 {
	x ^= x >> 16
	x *= 0x7ed1b41d
	x ^= x>>13 ^ x>>26
	x *= 0xa5cb9243
	x ^= x >> 16
	return x
}
