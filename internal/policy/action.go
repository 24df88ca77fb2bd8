package policy

// Action is what a session tool wants to do with a target session; it picks
// the wording of visibility refusals.
type Action int

// Actions of the session tools.
const (
	ActionHistory Action = iota + 1 // sessions_history
	ActionSend                      // sessions_send
	ActionStatus                    // session status
	ActionList                      // sessions_list
)

// String returns the action's display words ("Session history").
func (a Action) String() string {
	switch a {
	case ActionHistory:
		return "Session history"
	case ActionSend:
		return "Session send"
	case ActionStatus:
		return "Session status"
	case ActionList:
		return "Session list"
	}
	return "Session access"
}

// a2aWords returns the noun and object of agent-to-agent refusals:
// "Agent-to-agent <noun> is disabled. … allow cross-agent <object>."
// OpenClaw's objects are access|sends|visibility: status, like history,
// allows cross-agent "access" (OpenClaw's policy wording).
func (a Action) a2aWords() (noun, object string) {
	switch a {
	case ActionHistory:
		return "history", "access"
	case ActionSend:
		return "messaging", "sends"
	case ActionStatus:
		return "status", "access"
	case ActionList:
		return "listing", "visibility"
	}
	return "access", "access"
}
