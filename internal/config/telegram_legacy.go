package config

import "maps"

// streamModes are the values of channels.telegram's `streaming.mode`
// (OpenClaw's schema) and of its legacy `streamMode`.
var streamModes = map[string]bool{"off": true, "partial": true, "block": true, "progress": true}

// withoutLegacyTelegram checks the legacy `streamMode` key of a
// `channels.telegram` block (and of its accounts), which OpenClaw's
// current schema no longer lists but OpenClaw still reads as
// `streaming.mode`, and returns the block without it for the schema
// check. The block itself is left as it is: the adapter reads the key.
func withoutLegacyTelegram(v *checker, path string, block map[string]any) map[string]any {
	out := strip(v, path, block)
	if accts, ok := block["accounts"].(map[string]any); ok {
		copied := make(map[string]any, len(accts))
		for id, a := range accts {
			if am, ok := a.(map[string]any); ok {
				copied[id] = strip(v, path+".accounts."+id, am)
			} else {
				copied[id] = a
			}
		}
		out["accounts"] = copied
	}
	return out
}

// strip returns a copy of m without streamMode, whose value it checks.
func strip(v *checker, path string, m map[string]any) map[string]any {
	out := maps.Clone(m)
	if sm, ok := out["streamMode"]; ok {
		if s, _ := sm.(string); !streamModes[s] {
			v.add(path+".streamMode", `want "off", "partial", "block" or "progress"`)
		}
		delete(out, "streamMode")
	}
	return out
}
