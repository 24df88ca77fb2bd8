package remote

import "strings"

// ChainKey is the A2A message metadata key that carries switchboard's
// loop-governance chain: a JSON array of strings, the session keys the
// message passed through (each as named by the gateway that added it),
// oldest first, the sender's own record of the remote last. Its length is
// the hop count. docs/a2a.md documents it for other implementations.
const ChainKey = "switchboard.chain"

// maxChainEntries bounds what ChainOf accepts from the wire; a longer
// chain is cut to its newest entries (any maxHops is far below it).
const maxChainEntries = 256

// maxChainEntryChars bounds one entry (session keys are at most 512).
const maxChainEntryChars = 512

// ChainOf reads the chain from A2A message metadata. Anything that is not
// an array of non-empty strings counts as no chain; the entries are kept
// as sent (trimmed, bounded).
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

// ContextID is the A2A contextId of a local session key of a remote
// agent: the key without its `agent:<remoteId>:` prefix, so
// `agent:planner:main` talks in context `main` and
// `agent:planner:research-7` in `research-7`. One local session is one
// remote conversation.
func ContextID(key string) string {
	parts := strings.SplitN(key, ":", 3)
	if len(parts) == 3 && parts[0] == "agent" {
		return parts[2]
	}
	return key
}
