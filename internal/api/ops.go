package api

// Op names an operation a surface offers. Tools keep their tool names;
// the others are named like the gateway methods that carry them.
type Op string

// Operations. Every surface maps its calls onto these, and only these.
const (
	OpSessionsList    Op = "sessions_list"
	OpSessionsHistory Op = "sessions_history"
	OpSessionsSend    Op = "sessions_send"
	OpSessionsSpawn   Op = "sessions_spawn"
	OpAgentsList      Op = "agents_list"
	OpSubagentsList   Op = "subagents.list"
	OpSubagentsCancel Op = "subagents.cancel"
	OpRunsWait        Op = "runs_wait"
	OpSessionsSearch  Op = "sessions_search"
	OpSessionsYield   Op = "sessions_yield"
	OpSessionStatus   Op = "session_status"
	// OpSessionStatusModel is session_status with `model`: it changes the
	// session's model override, as sessions.patch does.
	OpSessionStatusModel Op = "session_status.model"

	OpChat            Op = "chat"
	OpCommand         Op = "chat.command" // /new, /reset, /stop, /send in a chat message
	OpRunsGet         Op = "runs.get"
	OpRunsList        Op = "runs.list"
	OpRunsCancel      Op = "runs.cancel"
	OpSessionsGet     Op = "sessions.get"
	OpSessionsResolve Op = "sessions.resolve"
	OpDefaults        Op = "sessions.defaults"
	OpSessionsPatch   Op = "sessions.patch"
	OpSessionsReset   Op = "sessions.reset"
	OpSessionsDel     Op = "sessions.delete"
	OpOutboxList      Op = "outbox.list"
	OpDeliver         Op = "outbox.deliver"
	OpUsageReport     Op = "usage.report"
	// OpChannelsStatus reads the chat channels' state (channels.status);
	// OpChannelsPairing lists, approves and dismisses pairing requests.
	OpChannelsStatus  Op = "channels.status"
	OpChannelsPairing Op = "channels.pairing"
)

// Acting says whose rights a call is decided with.
type Acting uint8

const (
	// AsRequester: the call acts as the principal's requester session when
	// it has one (visibility, send policy and agent-to-agent rules apply,
	// and a target session must be visible to it), else as the operator.
	AsRequester Acting = iota
	// OperatorOnly: only a principal without a requester may call it.
	OperatorOnly
)

// Rule is what an operation needs.
type Rule struct {
	Scope  Scope
	Acting Acting
	// Reads marks an operation that changes nothing: it runs no work.
	Reads bool
}

// rules is the one table of who may call what.
var rules = map[Op]Rule{
	OpSessionsList:    {Scope: ScopeRead, Reads: true},
	OpSessionsHistory: {Scope: ScopeRead, Reads: true},
	OpSessionsSend:    {Scope: ScopeWrite},
	OpSessionsSpawn:   {Scope: ScopeWrite},
	OpAgentsList:      {Scope: ScopeRead, Reads: true},
	OpSubagentsList:   {Scope: ScopeRead, Reads: true},
	OpSubagentsCancel: {Scope: ScopeWrite},
	OpRunsWait:        {Scope: ScopeRead, Reads: true},
	OpSessionsSearch:  {Scope: ScopeRead, Reads: true},
	OpSessionsYield:   {Scope: ScopeWrite},
	OpSessionStatus:   {Scope: ScopeRead, Reads: true},
	// Switching the model is a patch of the session: the scope patch needs.
	OpSessionStatusModel: {Scope: ScopeAdmin},

	OpChat:            {Scope: ScopeWrite},
	OpCommand:         {Scope: ScopeAdmin},
	OpRunsGet:         {Scope: ScopeRead, Reads: true},
	OpRunsList:        {Scope: ScopeRead, Reads: true},
	OpRunsCancel:      {Scope: ScopeWrite},
	OpSessionsGet:     {Scope: ScopeRead, Reads: true},
	OpSessionsResolve: {Scope: ScopeRead, Reads: true},
	OpDefaults:        {Scope: ScopeRead, Reads: true},
	OpSessionsPatch:   {Scope: ScopeAdmin},
	OpSessionsReset:   {Scope: ScopeAdmin},
	OpSessionsDel:     {Scope: ScopeAdmin},
	OpOutboxList:      {Scope: ScopeRead, Acting: OperatorOnly, Reads: true},
	OpDeliver:         {Scope: ScopeWrite, Acting: OperatorOnly},
	OpUsageReport:     {Scope: ScopeRead, Acting: OperatorOnly, Reads: true},
	OpChannelsStatus:  {Scope: ScopeRead, Acting: OperatorOnly, Reads: true},
	OpChannelsPairing: {Scope: ScopeAdmin, Acting: OperatorOnly},
	OpLoopsList:       {Scope: ScopeRead, Acting: OperatorOnly, Reads: true},
	OpLoopsResume:     {Scope: ScopeAdmin, Acting: OperatorOnly},
	OpAuditList:       {Scope: ScopeAdmin, Acting: OperatorOnly, Reads: true},
	OpAuditChain:      {Scope: ScopeAdmin, Acting: OperatorOnly, Reads: true},
	// Approvals need OpenClaw's operator.approvals (admin implies it): a
	// read-only or session-bound credential neither reads nor decides them.
	OpApprovalGet:     {Scope: ScopeApprovals, Acting: OperatorOnly, Reads: true},
	OpApprovalList:    {Scope: ScopeApprovals, Acting: OperatorOnly, Reads: true},
	OpApprovalHistory: {Scope: ScopeApprovals, Acting: OperatorOnly, Reads: true},
	OpApprovalResolve: {Scope: ScopeApprovals, Acting: OperatorOnly},
}

// RuleFor returns the rule of op. An operation missing from the table is
// a programming error; it gets the strictest rule.
func RuleFor(op Op) Rule {
	if r, ok := rules[op]; ok {
		return r
	}
	return Rule{Scope: ScopeAdmin, Acting: OperatorOnly}
}

// ToolOp maps a tool name (and, for subagents, its action) to its
// operation; ok is false for an unknown tool.
func ToolOp(name, action string) (Op, bool) {
	switch name {
	case ToolSessionsList:
		return OpSessionsList, true
	case ToolSessionsHistory:
		return OpSessionsHistory, true
	case ToolSessionsSend:
		return OpSessionsSend, true
	case ToolSessionsSpawn:
		return OpSessionsSpawn, true
	case ToolAgentsList:
		return OpAgentsList, true
	case ToolRunsWait:
		return OpRunsWait, true
	case ToolSessionsSearch:
		return OpSessionsSearch, true
	case ToolSessionsYield:
		return OpSessionsYield, true
	case ToolSessionStatus:
		if action == "model" {
			return OpSessionStatusModel, true
		}
		return OpSessionStatus, true
	case ToolSubagents:
		if action == "cancel" {
			return OpSubagentsCancel, true
		}
		return OpSubagentsList, true
	}
	return "", false
}
