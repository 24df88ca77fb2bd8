package domain

// Headers of the system contexts switchboard injects into the steps of an
// agent-to-agent exchange (docs/design.md#the-reply-back-loop-and-the-announce-step). Each step's context starts with
// its own header, on its own line, and never contains another step's, so
// people and the script model can tell the steps apart.
const (
	// A2AHeaderMessage starts the context of the target's primary run.
	A2AHeaderMessage = "Agent-to-agent message context:"
	// A2AHeaderReply starts the context of each reply-back turn.
	A2AHeaderReply = "Agent-to-agent reply step:"
	// A2AHeaderAnnounce starts the context of the announce step.
	A2AHeaderAnnounce = "Agent-to-agent announce step:"
	// A2AAnnounceText is the user message of the announce step.
	A2AAnnounceText = "Agent-to-agent announce step."
)

// Silence tokens: a reply that, trimmed, equals one of these says nothing.
const (
	// ReplySkip ends a reply-back exchange.
	ReplySkip = "REPLY_SKIP"
	// AnnounceSkip keeps the announce step (or a sub-agent's announce) silent.
	AnnounceSkip = "ANNOUNCE_SKIP"
	// NoReply is a turn with nothing to add.
	NoReply = "NO_REPLY"
)
