package domain

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// NewID returns a random UUID v4 string (run ids, session ids).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = (b[6] & 0x0f) | 0x40
	b[8] = (b[8] & 0x3f) | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewShortID returns n random bytes as hex (tool call ids, message ids).
func NewShortID(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
