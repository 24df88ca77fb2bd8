package api

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-go/switchboard/internal/config"
)

// Limit is the documented range of one numeric parameter. Where Clamp is
// set, numbers outside [Min, Max] are clamped (the reference's clamps);
// otherwise they are refused with an error naming the parameter and the
// limit. The schemas, the CLI flags, the HTTP/WS validation and
// docs/tools.md read these values; none repeats them.
type Limit struct {
	// Name is the parameter's camelCase name.
	Name string
	Min  int64
	Max  int64
	// Default applies when the parameter is absent.
	Default int64
	Clamp   bool
	// Unit is said in help and errors ("seconds", "minutes", …).
	Unit string
	// Text marks free text stored as sent: CheckChars also refuses U+0000
	// in it. Parameters with their own character rules (labels, keys,
	// agent ids) leave it unset and refuse control characters in their
	// own words.
	Text bool
}

// The limits of every numeric parameter.
var (
	// SessionsListLimit bounds the operator surfaces' listing (the WS
	// sessions.list and GET /api/sessions behind the web UI and dashboards);
	// a requester is still clamped to ListLimit, as the tool is.
	SessionsListLimit = Limit{Name: "limit", Min: 1, Max: 10_000, Default: 1000, Clamp: true}
	ListLimit         = Limit{Name: "limit", Min: 1, Max: 200, Default: 50, Clamp: true}
	ListActiveMinutes = Limit{Name: "activeMinutes", Min: 1, Max: 525_600, Clamp: true, Unit: "minutes"}
	ListMessageLimit  = Limit{Name: "messageLimit", Min: 0, Max: 20, Default: 0, Clamp: true}
	ListKinds         = Limit{Name: "kinds", Min: 0, Max: 16, Unit: "items"}
	HistoryLimit      = Limit{Name: "limit", Min: 1, Max: 1000, Default: 50, Clamp: true}
	// ChatHistoryLimit is the gateway's chat.history: OpenClaw's range and
	// default (200; OpenClaw's gateway methods), so its clients get what they expect
	// without a limit. sessions_history keeps the tool's default of 50 (docs/design.md#limits).
	ChatHistoryLimit = Limit{Name: "limit", Min: 1, Max: 1000, Default: 200, Clamp: true}
	// ChatHistoryMaxChars caps each text field of chat.history's messages
	// (OpenClaw's maxChars: 1..500000, default 12000; OpenClaw's gateway methods).
	ChatHistoryMaxChars = Limit{Name: "maxChars", Min: 1, Max: 500_000, Default: 12_000, Clamp: true, Unit: "characters"}
	SendTimeout         = Limit{Name: "timeoutSeconds", Min: 0, Max: 3600, Default: 30, Clamp: true, Unit: "seconds"}
	SpawnRunTimeout     = Limit{Name: "runTimeoutSeconds", Min: 0, Max: config.MaxRunTimeoutSeconds, Unit: "seconds"}
	ChatTimeout         = Limit{Name: "timeoutSeconds", Min: 0, Max: config.MaxRunTimeoutSeconds, Unit: "seconds"}
	WaitTimeout         = Limit{Name: "timeoutSeconds", Min: 0, Max: 3600, Default: 30, Clamp: true, Unit: "seconds"}
	RunsListLimit       = Limit{Name: "limit", Min: 1, Max: 1000, Default: 50, Clamp: true}
	OutboxListLimit     = Limit{Name: "limit", Min: 1, Max: 1000, Default: 100, Clamp: true}
	SpawnAttachments    = Limit{Name: "attachments", Min: 0, Max: config.MaxAttachmentFiles, Unit: "items"}
	MessageChars        = Limit{Name: "message", Min: 1, Max: 100_000, Unit: "characters", Text: true}
	TaskChars           = Limit{Name: "task", Min: 1, Max: 100_000, Unit: "characters", Text: true}
	LabelChars          = Limit{Name: "label", Min: 1, Max: 512, Unit: "characters"}
	KeyChars            = Limit{Name: "sessionKey", Min: 1, Max: 512, Unit: "characters"}
	SubscribedSessions  = Limit{Name: "key", Min: 0, Max: 1000, Unit: "subscribed sessions"} // per WS connection
	AgentIDChars        = Limit{Name: "agentId", Min: 1, Max: 64, Unit: "characters"}
	ModelChars          = Limit{Name: "model", Min: 1, Max: 256, Unit: "characters"}
	IdempotencyKeyChars = Limit{Name: "idempotencyKey", Min: 1, Max: 256, Unit: "characters", Text: true}
	// DeliverToChars and DeliverChannelChars bound `send`'s recipient and
	// channel, which are stored as they are in the outbox.
	DeliverToChars      = Limit{Name: "to", Min: 1, Max: 512, Unit: "characters", Text: true}
	DeliverChannelChars = Limit{Name: "channel", Min: 0, Max: 128, Unit: "characters", Text: true}
	// The delivery hints of a chat (to, replyTo, accountId, threadId,
	// senderId) are stored on the session row and shown in every listing
	// of it, so they are bounded like send's recipient.
	ChatReplyToChars   = Limit{Name: "replyTo", Min: 0, Max: 512, Unit: "characters", Text: true}
	ChatAccountIDChars = Limit{Name: "accountId", Min: 0, Max: 256, Unit: "characters", Text: true}
	ChatThreadIDChars  = Limit{Name: "threadId", Min: 0, Max: 256, Unit: "characters", Text: true}
	ChatSenderIDChars  = Limit{Name: "senderId", Min: 0, Max: 256, Unit: "characters", Text: true}

	// Search and paging (issue 15). Offsets are refused past their Max, not
	// clamped: a clamped offset would silently return another page.
	SearchLimit        = Limit{Name: "limit", Min: 1, Max: 100, Default: 20, Clamp: true}
	SearchQueryChars   = Limit{Name: "query", Min: 1, Max: 500, Unit: "characters", Text: true}
	SearchQueryWords   = Limit{Name: "query", Min: 1, Max: 16, Unit: "words"}
	SearchSinceMinutes = Limit{Name: "sinceMinutes", Min: 1, Max: 525_600, Clamp: true, Unit: "minutes"}
	SearchCursorChars  = Limit{Name: "cursor", Min: 1, Max: 128, Unit: "characters"}
	// SearchScanMatches is not a parameter: it is the most index matches
	// one sessions_search request examines (in the sessions the caller may
	// read, the filters deciding). A page that reaches it ends early with
	// nextCursor, so no request's work grows with the matches it skips.
	SearchScanMatches = Limit{Name: "scan", Min: 1, Max: 1000, Unit: "matches"}
	ListOffset        = Limit{Name: "offset", Min: 0, Max: 1_000_000}
	// ListSearchChars bounds sessions.list's substring search (WS, HTTP
	// ?search=, CLI --search). OpenClaw states no bound; sessions_search's
	// query bound is reused so no caller can hand
	// the store a pattern of megabytes, and Text refuses U+0000, which
	// PostgreSQL cannot compare.
	ListSearchChars = Limit{Name: "search", Min: 0, Max: 500, Unit: "characters", Text: true}

	// Lengths of sessions.list's derived row texts (not parameters): the
	// whitespace-collapsed text is cut at Max characters with "…".
	ListDerivedTitleChars = Limit{Name: "derivedTitle", Min: 0, Max: 60, Unit: "characters"}
	ListPreviewChars      = Limit{Name: "lastMessagePreview", Min: 0, Max: 120, Unit: "characters"}
	HistoryOffset         = Limit{Name: "offset", Min: 0, Max: 1_000_000}
	MessageIDChars        = Limit{Name: "beforeMessageId", Min: 1, Max: 64, Unit: "characters"}
	// YieldMessageChars bounds sessions_yield's message (it becomes the
	// run's reply).
	YieldMessageChars = Limit{Name: "message", Min: 0, Max: 4000, Unit: "characters", Text: true}
	// ForkMessages and ForkChars are the budget of sessions_spawn
	// context:"fork": the newest user and assistant messages of the
	// requester's transcript, at most ForkMessages of them and at most
	// ForkChars characters of text in all (oldest dropped first; each
	// text field is also capped as sessions_history caps it). Not a
	// parameter: the budget is fixed, so a fork's cost is predictable.
	ForkMessages = Limit{Name: "forkMessages", Min: 0, Max: 40, Default: 40, Unit: "messages"}
	ForkChars    = Limit{Name: "forkChars", Min: 0, Max: 32_000, Default: 32_000, Unit: "characters"}
)

// Limits lists every limit, for docs and tests.
func Limits() map[string][]Limit {
	return map[string][]Limit{
		ToolSessionsList:              {ListLimit, ListActiveMinutes, ListMessageLimit, ListKinds, ListOffset},
		ToolSessionsHistory:           {HistoryLimit, KeyChars, HistoryOffset, MessageIDChars},
		ToolSessionsSearch:            {SearchLimit, SearchQueryChars, SearchQueryWords, SearchSinceMinutes, ListKinds, AgentIDChars, SearchCursorChars},
		ToolSessionsSend:              {SendTimeout, MessageChars, LabelChars, KeyChars, AgentIDChars, IdempotencyKeyChars},
		ToolSessionsSpawn:             {SpawnRunTimeout, SpawnAttachments, TaskChars, LabelChars, AgentIDChars, ModelChars, IdempotencyKeyChars, BudgetTokens, BudgetCostUSD, BudgetSeconds},
		ToolRunsWait:                  {WaitTimeout},
		"subscribe":                   {SubscribedSessions, KeyChars},
		"chat":                        {ChatTimeout, MessageChars, IdempotencyKeyChars},
		"runs list":                   {RunsListLimit},
		"sessions.list":               {SessionsListLimit, ListSearchChars},
		"chat.history":                {ChatHistoryLimit, ChatHistoryMaxChars},
		"outbox list":                 {OutboxListLimit},
		ToolSessionsYield:             {YieldMessageChars},
		ToolSessionStatus:             {KeyChars, ModelChars},
		"sessions_spawn context fork": {ForkMessages, ForkChars},
		"usage":                       {UsageLimit},
		"audit.list":                  {AuditListLimit, AuditCursorChars},
		"audit.chain.list":            {AuditChainLimit, AuditCursorChars},
	}
}

// Apply validates n against l: clamped or refused per l, as the reference
// says. The error names the parameter and the limit.
func (l Limit) Apply(n int64) (int64, error) {
	if n < l.Min {
		if l.Clamp && n >= 0 {
			return l.Min, nil
		}
		return 0, invalidf("%s must be at least %d%s (got %d)", l.Name, l.Min, l.unitOf(l.Min), n)
	}
	if n > l.Max {
		if l.Clamp {
			return l.Max, nil
		}
		return 0, invalidf("%s must be at most %d%s (got %d)", l.Name, l.Max, l.unitOf(l.Max), n)
	}
	return n, nil
}

// ApplyFloat is Apply for a JSON number: it must be a whole number.
func (l Limit) ApplyFloat(f float64) (int64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return 0, invalidf("%s must be a whole number", l.Name)
	}
	if f > math.MaxInt64/2 {
		if l.Clamp {
			return l.Max, nil
		}
		return 0, invalidf("%s is too large (at most %d%s)", l.Name, l.Max, l.unitOf(l.Max))
	}
	if f < math.MinInt64/2 {
		return 0, invalidf("%s must be at least %d%s", l.Name, l.Min, l.unitOf(l.Min))
	}
	return l.Apply(int64(f))
}

// Or returns the value of an optional parameter, or the default.
func (l Limit) Or(v *int64) int64 {
	if v == nil {
		return l.Default
	}
	return *v
}

// Describe is the limit in words, for help texts and schemas.
func (l Limit) Describe() string {
	s := fmt.Sprintf("%d..%d%s", l.Min, l.Max, l.unit())
	if l.Default != 0 {
		s += fmt.Sprintf(", default %d", l.Default)
	}
	return s
}

func (l Limit) unit() string {
	if l.Unit == "" {
		return ""
	}
	return " " + l.Unit
}

// unitOf is the unit after the number n: "1 minute", "5 minutes".
func (l Limit) unitOf(n int64) string {
	if n == 1 {
		return strings.TrimSuffix(l.unit(), "s")
	}
	return l.unit()
}

// CheckChars refuses a string longer than l.Max characters, or free text
// (l.Text) holding U+0000: PostgreSQL cannot store it in TEXT, so the same
// text would pass on SQLite and fail as an internal error there. OpenClaw's
// chat.send refuses it with the same words.
func (l Limit) CheckChars(s string) error {
	if n := utf8.RuneCountInString(s); int64(n) > l.Max {
		return invalidf("%s is too long (%d characters; max %d)", l.Name, n, l.Max)
	}
	if l.Text && strings.IndexByte(s, 0) >= 0 {
		return invalidf("%s must not contain null bytes", l.Name)
	}
	return nil
}

// CheckIdempotencyKey refuses a caller's idempotency key longer than
// IdempotencyKeyChars; no key ("") passes. Every operation that takes a
// key (send, spawn, chat, deliver) checks it here, whatever the surface.
func CheckIdempotencyKey(key string) error {
	if key == "" {
		return nil
	}
	return IdempotencyKeyChars.CheckChars(key)
}
