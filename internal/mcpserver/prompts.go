package mcpserver

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// The prompts: the common moves with the session tools, each a user
// message that names the tool and its arguments, so the model makes the
// call (through the gate, as the principal) rather than the prompt.
const (
	promptDelegate  = "delegate"
	promptAsk       = "ask_session"
	promptSummarize = "summarize_session"
)

// promptArg is one typed prompt argument: MCP carries strings, and
// parse checks the string against the tool parameter it becomes.
type promptArg struct {
	arg   *mcp.PromptArgument
	check func(string) error
}

func textArg(name, desc string, required bool, l api.Limit) promptArg {
	return promptArg{arg: &mcp.PromptArgument{Name: name, Description: desc, Required: required}, check: func(v string) error {
		if n := int64(len([]rune(v))); n > l.Max {
			return domain.Invalid("%s: %d characters, at most %d", name, n, l.Max)
		}
		return nil
	}}
}

func intArg(name, desc string, l api.Limit) promptArg {
	return promptArg{arg: &mcp.PromptArgument{Name: name, Description: desc + fmt.Sprintf(" (an integer, %d to %d)", l.Min, l.Max)},
		check: func(v string) error {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < l.Min || n > l.Max {
				return domain.Invalid("%s: %q is not an integer from %d to %d", name, v, l.Min, l.Max)
			}
			return nil
		}}
}

type prompt struct {
	p    *mcp.Prompt
	args []promptArg
	// render builds the messages from checked arguments.
	render func(ctx context.Context, rs resources, a map[string]string) ([]*mcp.PromptMessage, error)
}

func prompts() []prompt {
	return []prompt{
		{
			p: &mcp.Prompt{Name: promptDelegate, Title: "Delegate a task to a sub-agent",
				Description: "Start a sub-agent with sessions_spawn; its result is announced back to your session."},
			args: []promptArg{
				textArg("task", "What the sub-agent should do.", true, api.TaskChars),
				textArg("agentId", "The agent to run it (default: yours).", false, api.AgentIDChars),
				textArg("label", "A label to find the sub-agent's session by.", false, api.LabelChars),
			},
			render: func(_ context.Context, _ resources, a map[string]string) ([]*mcp.PromptMessage, error) {
				call := toolCall(api.ToolSessionsSpawn, a, "task", "agentId", "label")
				return userText("Delegate this task to a sub-agent: call " + call + ", then go on; its result is announced " +
					"to this session when it finishes.\n\nTask:\n" + a["task"]), nil
			},
		},
		{
			p: &mcp.Prompt{Name: promptAsk, Title: "Ask another session and wait",
				Description: "Send a message to another session with sessions_send and wait for its reply."},
			args: []promptArg{
				textArg("sessionKey", "The session to ask (a key or label you can see).", true, api.KeyChars),
				textArg("message", "What to ask.", true, api.MessageChars),
				intArg("timeoutSeconds", "How long to wait for the reply.", api.SendTimeout),
			},
			render: func(_ context.Context, _ resources, a map[string]string) ([]*mcp.PromptMessage, error) {
				call := toolCall(api.ToolSessionsSend, a, "sessionKey", "message", "timeoutSeconds")
				return userText("Ask the session " + a["sessionKey"] + " and wait for its answer: call " + call +
					", then tell me its reply (or that it timed out).\n\nMessage:\n" + a["message"]), nil
			},
		},
		{
			p: &mcp.Prompt{Name: promptSummarize, Title: "Summarize a session",
				Description: "The session's transcript (as sessions_history shows it to you), with a request to summarize it."},
			args: []promptArg{
				textArg("sessionKey", "The session to summarize.", true, api.KeyChars),
				intArg("limit", "How many of the newest messages to include.", api.HistoryLimit),
			},
			render: func(ctx context.Context, rs resources, a map[string]string) ([]*mcp.PromptMessage, error) {
				uri := sessionURI(a["sessionKey"])
				if a["limit"] != "" {
					uri += "?limit=" + strings.TrimSpace(a["limit"])
				}
				res, err := rs.read(ctx, uri)
				if err != nil {
					return nil, err
				}
				return []*mcp.PromptMessage{
					{Role: "user", Content: &mcp.EmbeddedResource{Resource: res.Contents[0]}},
					{Role: "user", Content: &mcp.TextContent{Text: "Summarize the session above: what was asked, " +
						"what was done, what was decided and what is still open."}},
				}, nil
			},
		},
	}
}

// handler is the prompt's SDK handler: a missing or malformed argument is
// invalid params naming it.
func (pr prompt) handler(rs resources) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := map[string]string{}
		if req != nil && req.Params != nil {
			a = req.Params.Arguments
		}
		known := map[string]bool{}
		for _, pa := range pr.args {
			known[pa.arg.Name] = true
			v, ok := a[pa.arg.Name]
			if !ok || v == "" {
				if pa.arg.Required {
					return nil, rpcError(domain.Invalid("%s: required", pa.arg.Name))
				}
				continue
			}
			if err := pa.check(v); err != nil {
				return nil, rpcError(err)
			}
		}
		for name := range a {
			if !known[name] {
				return nil, rpcError(domain.Invalid("%s: not an argument of %s", name, pr.p.Name))
			}
		}
		msgs, err := pr.render(ctx, rs, a)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Description: pr.p.Description, Messages: msgs}, nil
	}
}

func (pr prompt) withArgs() *mcp.Prompt {
	p := *pr.p
	for _, a := range pr.args {
		p.Arguments = append(p.Arguments, a.arg)
	}
	return &p
}

// toolCall writes a tool call with the given arguments, in order.
func toolCall(tool string, a map[string]string, names ...string) string {
	var parts []string
	for _, n := range names {
		v, ok := a[n]
		if !ok || v == "" {
			continue
		}
		if _, err := strconv.ParseInt(v, 10, 64); err == nil && strings.HasSuffix(n, "Seconds") {
			parts = append(parts, n+": "+v)
		} else {
			parts = append(parts, n+": "+strconv.Quote(v))
		}
	}
	return tool + " {" + strings.Join(parts, ", ") + "}"
}

func userText(s string) []*mcp.PromptMessage {
	return []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: s}}}
}
