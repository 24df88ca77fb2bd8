package exchange

import (
	"fmt"
	"slices"
	"strings"
)

// Extend is the loop-safety check of a send made inside a run: chain is
// the chain stored on that run (the sessions the messages passed through
// before it), requester the session sending now and target where it
// sends. It returns the chain the new message carries, or a refusal
// (shown to the agent, naming the target as display) when the target is
// already part of the chain or the chain would exceed maxHops (0: no
// limit). Both refusals name the chain, so the agent sees the path.
func Extend(chain []string, requester, target, display string, maxHops int) ([]string, string) {
	next := append(slices.Clip(chain), requester)
	if slices.Contains(next, target) {
		return nil, fmt.Sprintf("sessions_send refused: %s is already part of this chain of inter-session messages (%s); sending back into the chain would loop", display, strings.Join(next, " → "))
	}
	if maxHops > 0 && len(next) > maxHops {
		return nil, fmt.Sprintf("sessions_send refused: this chain of inter-session messages already has %d hops (%s; session.agentToAgent.maxHops=%d)", len(next)-1, strings.Join(append(next, target), " → "), maxHops)
	}
	return next, ""
}
