package engine

import (
	"encoding/json"
	"strconv"

	"github.com/switchboard-go/switchboard/internal/api"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/policy"
)

// Tool names (the session tools' names are policy's, which filters them).
const (
	ToolSessionsList    = policy.ToolSessionsList
	ToolSessionsHistory = policy.ToolSessionsHistory
	ToolSessionsSend    = policy.ToolSessionsSend
	ToolSessionsSpawn   = policy.ToolSessionsSpawn
	ToolAgentsList      = policy.ToolAgentsList
	ToolSubagents       = policy.ToolSubagents
	ToolRunsWait        = "runs_wait"
)

// The limits of tool parameters are internal/api's table (api.ListLimit,
// api.SendTimeout, …): the parsers, the schemas below and docs/tools.md
// read them; no number is written here.

func schema(s string) json.RawMessage { return json.RawMessage(s) }

// num writes a limit's number into a schema or a description.
func num(n int64) string { return strconv.FormatInt(n, 10) }

var toolSpecs = map[string]domain.ToolSpec{
	ToolSessionsList: {
		Name: ToolSessionsList,
		Description: "List sessions you can see (your own session and, by default, the sub-agent sessions you spawned), newest first. " +
			"Use it to find a session key before sessions_history or sessions_send. Filter with kinds (main, group, cron, hook, node, other) " +
			"and activeMinutes; set messageLimit (" + num(api.ListMessageLimit.Min) + "-" + num(api.ListMessageLimit.Max) + ") to include each session's last messages (tool results are left out). " +
			"Returns {count, sessions:[{key, kind, channel, updatedAt, sessionId, model, totalTokens, …}]}.",
		InputSchema: schema(`{"type":"object","properties":{
"kinds":{"type":"array","items":{"type":"string","enum":["main","group","cron","hook","node","other"]},"description":"Only sessions of these kinds."},
"limit":{"type":"number","minimum":` + num(api.ListLimit.Min) + `,"description":"Maximum rows (default ` + num(api.ListLimit.Default) + `, at most ` + num(api.ListLimit.Max) + `)."},
"activeMinutes":{"type":"number","minimum":` + num(api.ListActiveMinutes.Min) + `,"description":"Only sessions updated within this many minutes."},
"messageLimit":{"type":"number","minimum":` + num(api.ListMessageLimit.Min) + `,"description":"Include the last N messages of each session (` + num(api.ListMessageLimit.Min) + `-` + num(api.ListMessageLimit.Max) + `, default ` + num(api.ListMessageLimit.Default) + `)."}},
"additionalProperties":false}`),
	},
	ToolSessionsHistory: {
		Name: ToolSessionsHistory,
		Description: "Read the transcript of one session: its newest messages in order, in the raw transcript format " +
			"({role, content, timestamp, provenance?}). sessionKey takes a key from sessions_list, \"main\", \"current\" or a sessionId. " +
			"Tool results are left out unless includeTools is true. Long texts are cut at 4000 characters and credentials are masked; " +
			"the result says whether anything was truncated.",
		InputSchema: schema(`{"type":"object","properties":{
"sessionKey":{"type":"string","description":"Session key (or sessionId) from sessions_list; \"main\" is your agent's main session."},
"limit":{"type":"number","minimum":` + num(api.HistoryLimit.Min) + `,"description":"Maximum messages (default ` + num(api.HistoryLimit.Default) + `, at most ` + num(api.HistoryLimit.Max) + `)."},
"includeTools":{"type":"boolean","description":"Include toolResult messages (default false)."}},
"required":["sessionKey"],"additionalProperties":false}`),
	},
	ToolSessionsSend: {
		Name: ToolSessionsSend,
		Description: "Send a message into another session and (by default) wait for its agent's reply. " +
			"timeoutSeconds 0 sends without waiting ({status:\"accepted\"}); otherwise you get {status:\"ok\", reply}, " +
			"{status:\"timeout\"} (the run goes on: read it later with sessions_history) or {status:\"error\"}. " +
			"After the reply the two agents may continue for a few turns (reply exactly REPLY_SKIP to stop), then the target " +
			"announces the outcome to its channel (reply exactly ANNOUNCE_SKIP to stay silent). Give sessionKey or label, not both.",
		InputSchema: schema(`{"type":"object","properties":{
"sessionKey":{"type":"string","description":"Target session key (or sessionId) from sessions_list."},
"label":{"type":"string","description":"Target session label, instead of sessionKey."},
"agentId":{"type":"string","description":"With label: the agent whose sessions to search."},
"message":{"type":"string","description":"The message to send."},
"timeoutSeconds":{"type":"number","minimum":` + num(api.SendTimeout.Min) + `,"description":"Seconds to wait for the reply (default ` + num(api.SendTimeout.Default) + `; 0 = do not wait)."}},
"required":["message"],"additionalProperties":false}`),
	},
	ToolSessionsSpawn: {
		Name: ToolSessionsSpawn,
		Description: "Start a sub-agent on a task in a new isolated session. It returns at once with {status:\"accepted\", runId, childSessionKey}; " +
			"when the sub-agent finishes, its result is announced back to this session automatically — do not poll for it. " +
			"Use agents_list to see which agentId values you may use.",
		InputSchema: schema(`{"type":"object","properties":{
"task":{"type":"string","description":"What the sub-agent should do, with everything it needs to know."},
"label":{"type":"string","description":"A short label for logs and the UI."},
"agentId":{"type":"string","description":"Spawn under another agent id (if allowed; see agents_list)."},
"model":{"type":"string","description":"Model reference for the sub-agent (provider/model)."},
"thinking":{"type":"string","enum":["off","minimal","low","medium","high"],"description":"Thinking level for the sub-agent run."},
"runTimeoutSeconds":{"type":"number","minimum":` + num(api.SpawnRunTimeout.Min) + `,"description":"Abort the sub-agent run after this many seconds (0 = no limit)."},
"thread":{"type":"boolean","description":"Request thread-bound routing (default false)."},
"mode":{"type":"string","enum":["run","session"],"description":"run (default): one run; session: a persistent child session (requires thread=true)."},
"cleanup":{"type":"string","enum":["delete","keep"],"description":"delete removes the child session after the announce (default keep)."},
"sandbox":{"type":"string","enum":["inherit","require"],"description":"require: refuse unless the child runs sandboxed."},
"attachments":{"type":"array","maxItems":` + num(api.SpawnAttachments.Max) + `,"items":{"type":"object","properties":{"name":{"type":"string"},"content":{"type":"string"},"encoding":{"type":"string","enum":["utf8","base64"]},"mimeType":{"type":"string"}},"required":["name","content"]},"description":"Inline files written into the child's workspace."},
"attachAs":{"type":"object","properties":{"mountPath":{"type":"string"}},"description":"Reserved hint for where attachments are mounted."}},
"required":["task"],"additionalProperties":false}`),
	},
	ToolAgentsList: {
		Name:        ToolAgentsList,
		Description: "List the agent ids you may use as agentId in sessions_spawn, with their names and models.",
		InputSchema: schema(`{"type":"object","properties":{},"additionalProperties":false}`),
	},
	ToolSubagents: {
		Name: ToolSubagents,
		Description: "List the sub-agents this session spawned, or cancel them. action \"list\" (default) shows each child's " +
			"status; action \"cancel\" with target (a runId, a childSessionKey or \"all\") cancels it and everything it started.",
		InputSchema: schema(`{"type":"object","properties":{
"action":{"type":"string","enum":["list","cancel"],"description":"list (default) or cancel."},
"target":{"type":"string","description":"With cancel: a runId, a childSessionKey, or \"all\"."}},
"additionalProperties":false}`),
	},
	ToolRunsWait: {
		Name:        ToolRunsWait,
		Description: "Wait again for a run started earlier (a sessions_send that timed out, a spawned sub-agent): returns {runId, status, reply?, error?} once it ends or when timeoutSeconds pass.",
		InputSchema: schema(`{"type":"object","properties":{
"runId":{"type":"string","description":"The runId to wait for."},
"timeoutSeconds":{"type":"number","minimum":` + num(api.WaitTimeout.Min) + `,"description":"Seconds to wait (default ` + num(api.WaitTimeout.Default) + `, at most ` + num(api.WaitTimeout.Max) + `)."}},
"required":["runId"],"additionalProperties":false}`),
	},
}

// ToolSpecs returns the specs of the named tools (every tool when names is
// empty), in a stable order.
func ToolSpecs(names ...string) []domain.ToolSpec {
	if len(names) == 0 {
		names = AllTools()
	}
	out := make([]domain.ToolSpec, 0, len(names))
	for _, n := range names {
		if s, ok := toolSpecs[n]; ok {
			out = append(out, s)
		}
	}
	return out
}

// AllTools lists every tool name in a stable order.
func AllTools() []string {
	return []string{ToolSessionsList, ToolSessionsHistory, ToolSessionsSend, ToolSessionsSpawn, ToolAgentsList, ToolSubagents, ToolRunsWait}
}
