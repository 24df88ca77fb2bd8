package subagent

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// Notes returned to the requester with an accepted spawn.
const (
	// Note is the note of a one-shot child.
	Note = "The sub-agent runs in the background. Its result is announced back to this session automatically when it finishes: do not poll for it or wait in a loop. Continue with other work, or end your turn (reply NO_REPLY if you have nothing to add)."
	// SessionNote is the note of a thread-bound child (mode "session").
	SessionNote = "The child session stays active after this run: keep talking to it with sessions_send. Its first result is announced back to this session automatically."
)

// Context is the system context injected into a child's run.
func Context(requester, child, label string) string {
	lines := []string{
		"Sub-agent context:",
		"You are a sub-agent spawned by session " + requester + " to do one task. Your session: " + child + ".",
	}
	if label != "" {
		lines = append(lines, "Label: "+label+".")
	}
	lines = append(lines, "Do the task in the next user message and finish with a final reply that holds the result: it is announced back to the requester automatically. Reply exactly "+domain.AnnounceSkip+" if nothing should be announced.")
	return strings.Join(lines, "\n")
}
