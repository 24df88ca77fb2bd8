package sessionkey

import (
	"testing"
)

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		"main", "MAIN", "global", "unknown", "current", "work", "agent:main:main",
		"agent:Ops:Discord:Group:1", "cron:x", "hook:x", "node-x", "discord:group:1",
		"agent:main", "agent::x", ":", "a::b", " x ", "agent:main:subagent:x:subagent:y",
		"\xff", "a\u200bb", "İ", "ǅ", "K",
	} {
		f.Add(s, "main")
		f.Add(s, "")
	}
	resolvers := []Resolver{{}, {MainKey: "work", DefaultAgentID: "ops", GlobalScope: true}}
	f.Fuzz(func(t *testing.T, input, requester string) {
		for _, r := range resolvers {
			out, err := r.Canonical(input, requester)
			// These must never panic, whatever the input.
			_ = r.Kind(input)
			_ = ChatTypeFromKey(input)
			_ = ChannelFromKey(input)
			_ = SubagentDepth(input)
			_ = LooksLikeSessionID(input)
			_ = r.Display(input, requester)
			if _, rerr := r.Resolve(input, input); rerr != nil {
				_ = rerr.Error()
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("empty error for %q", input)
				}
				continue
			}
			k, err := Parse(out)
			if err != nil {
				t.Fatalf("Canonical(%q) = %q does not parse: %v", input, out, err)
			}
			if k.String() != out || !IsCanonical(out) {
				t.Fatalf("Canonical(%q) = %q is not canonical (parses as %q)", input, out, k.String())
			}
			again, err := r.Canonical(out, "someone")
			if err != nil || again != out {
				t.Fatalf("Canonical(%q) = %q, %v; want it unchanged", out, again, err)
			}
			if len(out) > MaxKeyLen {
				t.Fatalf("Canonical(%q) is %d bytes", input, len(out))
			}
		}
	})
}
