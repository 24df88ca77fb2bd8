package wire

import "strings"

// ChainKey is the A2A message metadata key that carries switchboard's
// loop-governance chain across the wire: a JSON array of strings, the
// session keys the message passed through (each as named by the gateway
// that added it), oldest first, ending with the sender's local record of
// the remote agent. Its length is the hop count. switchboard's A2A client
// (internal/a2a/remote) writes it; its A2A server reads it (ChainOf) and
// refuses a message whose session is already in it or whose chain is
// longer than session.agentToAgent.maxHops. docs/a2a.md documents it.
const ChainKey = "switchboard.chain"

// Bounds of what ChainOf accepts from the wire.
const (
	maxChainEntries    = 256
	maxChainEntryChars = 512
)

// ChainOf reads the chain from A2A message metadata. Anything that is not
// an array counts as no chain; entries that are not non-empty strings are
// skipped; a chain longer than 256 entries keeps its newest ones (any
// maxHops is far below that), an entry longer than 512 bytes is cut.
func ChainOf(metadata map[string]any) []string {
	raw, ok := metadata[ChainKey].([]any)
	if !ok {
		return nil
	}
	if len(raw) > maxChainEntries {
		raw = raw[len(raw)-maxChainEntries:]
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		s, ok := v.(string)
		s = strings.TrimSpace(s)
		if !ok || s == "" {
			continue
		}
		if len(s) > maxChainEntryChars {
			s = s[:maxChainEntryChars]
		}
		out = append(out, s)
	}
	return out
}
