package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

// ChainKey is the metadata key of the loop-governance chain (wire.ChainKey).
const ChainKey = wire.ChainKey

// ChainOf reads the chain from A2A message metadata (wire.ChainOf).
func ChainOf(metadata map[string]any) []string { return wire.ChainOf(metadata) }

// maxContextIDChars is the longest contextId sent; A2A servers (switchboard's
// among them) bound it, and a session key may be long.
const maxContextIDChars = 128

// ContextID is the A2A contextId of a local session key of a remote
// agent: the key without its `agent:<remoteId>:` prefix, with every
// character other than a letter, digit, '.', '_' or '-' written as '.'.
// So `agent:planner:main` talks in context `main` and
// `agent:planner:discord:group:7` in `discord.group.7`. A result longer
// than 128 characters keeps its first 111 and ends in '-' and 16 hex
// digits of the key's SHA-256, so it stays unique. One local session is
// one remote conversation.
func ContextID(key string) string {
	rest := key
	if parts := strings.SplitN(key, ":", 3); len(parts) == 3 && parts[0] == "agent" {
		rest = parts[2]
	}
	b := []byte(rest)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			b[i] = '.'
		}
	}
	out := string(b)
	if len(out) > maxContextIDChars {
		sum := sha256.Sum256([]byte(key))
		out = out[:maxContextIDChars-17] + "-" + hex.EncodeToString(sum[:8])
	}
	return out
}
