package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-go/switchboard/internal/api"
)

func TestPrompts(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := newEngine(t, "tree")
			chat(t, e, "agent:main:alice", "plan the launch")
			chat(t, e, "main", "secret of main")
			cs := tr.connect(t, New(e, Options{}), boundTo("alice", "agent:main:alice"), nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()

			list, err := cs.ListPrompts(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, p := range list.Prompts {
				names = append(names, p.Name)
			}
			if !slices.Equal(names, []string{"ask_session", "delegate", "summarize_session"}) {
				t.Fatalf("prompts = %v", names)
			}

			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "delegate", Arguments: map[string]string{"task": "count to 3", "label": "counter"}})
			if err != nil {
				t.Fatal(err)
			}
			text := res.Messages[0].Content.(*mcp.TextContent).Text
			if !strings.Contains(text, `sessions_spawn {task: "count to 3", label: "counter"}`) {
				t.Errorf("delegate = %s", text)
			}
			res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "ask_session", Arguments: map[string]string{
				"sessionKey": "agent:main:bob", "message": "status?", "timeoutSeconds": "60"}})
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Messages[0].Content.(*mcp.TextContent).Text; !strings.Contains(text, `sessions_send {sessionKey: "agent:main:bob", message: "status?", timeoutSeconds: 60}`) {
				t.Errorf("ask_session = %s", text)
			}

			// Typed arguments: a bad integer, a missing or unknown argument
			// is invalid params naming it.
			for _, c := range []struct {
				name string
				args map[string]string
				want string
			}{
				{"ask_session", map[string]string{"sessionKey": "x", "message": "m", "timeoutSeconds": "soon"}, "timeoutSeconds"},
				{"ask_session", map[string]string{"sessionKey": "x", "message": "m", "timeoutSeconds": "99999"}, "timeoutSeconds"},
				{"delegate", map[string]string{}, "task: required"},
				{"delegate", map[string]string{"task": "t", "colour": "red"}, "colour"},
				{"summarize_session", map[string]string{"sessionKey": "agent:main:alice", "limit": "0"}, "limit"},
			} {
				_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: c.name, Arguments: c.args})
				if code, data := rpcCode(err); code != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), c.want) || !strings.Contains(data, `"code":"invalid"`) {
					t.Errorf("%s %v = %v, want invalid params naming %s", c.name, c.args, err, c.want)
				}
			}

			// summarize_session embeds the transcript as the principal may
			// read it, and refuses another session as its history is refused.
			res, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_session", Arguments: map[string]string{"sessionKey": "agent:main:alice"}})
			if err != nil {
				t.Fatal(err)
			}
			er, ok := res.Messages[0].Content.(*mcp.EmbeddedResource)
			if !ok || !strings.Contains(er.Resource.Text, "plan the launch") || er.Resource.URI != sessionURI("agent:main:alice") {
				t.Fatalf("summarize_session = %+v", res.Messages[0].Content)
			}
			_, err = cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize_session", Arguments: map[string]string{"sessionKey": "agent:main:main"}})
			if code, _ := rpcCode(err); code != mcp.CodeResourceNotFound || strings.Contains(err.Error(), "secret") {
				t.Errorf("summarize another session = %v", err)
			}
		})
	}
}

func TestCompletions(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := newEngine(t, "tree")
			chat(t, e, "agent:main:alice", "hi")
			chat(t, e, "agent:main:alfred", "hi")
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if _, err := e.Patch(ctx, api.Operator(), api.PatchRequest{Key: "agent:main:alice", Label: api.SetValue("alpha")}); err != nil {
				t.Fatal(err)
			}
			if _, err := e.Patch(ctx, api.Operator(), api.PatchRequest{Key: "agent:main:alfred", Label: api.SetValue("alps")}); err != nil {
				t.Fatal(err)
			}
			s := New(e, Options{})
			operator := tr.connect(t, s, operatorAs(""), nil)
			alice := tr.connect(t, s, boundTo("alice", "agent:main:alice"), nil)
			complete := func(cs *mcp.ClientSession, ref *mcp.CompleteReference, arg, value string) []string {
				t.Helper()
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
				if err != nil {
					t.Fatalf("complete %s=%q: %v", arg, value, err)
				}
				return res.Completion.Values
			}
			ask := &mcp.CompleteReference{Type: "ref/prompt", Name: "ask_session"}
			tmpl := &mcp.CompleteReference{Type: "ref/resource", URI: sessionTemplate}
			for _, c := range []struct {
				who  string
				cs   *mcp.ClientSession
				ref  *mcp.CompleteReference
				arg  string
				val  string
				want []string
			}{
				{"operator", operator, ask, "sessionKey", "agent:main:al", []string{"agent:main:alfred", "agent:main:alice"}},
				{"operator", operator, tmpl, "sessionKey", "AGENT:MAIN:ALI", []string{"agent:main:alice"}},
				{"operator", operator, ask, "label", "al", []string{"alpha", "alps"}},
				{"bound", alice, ask, "sessionKey", "agent:main:al", []string{"agent:main:alice"}},
				{"bound", alice, tmpl, "label", "", []string{"alpha"}},
				{"bound", alice, &mcp.CompleteReference{Type: "ref/prompt", Name: "delegate"}, "agentId", "m", []string{"main"}},
				{"bound", alice, ask, "message", "any", []string{}},
			} {
				if got := complete(c.cs, c.ref, c.arg, c.val); !slices.Equal(got, c.want) {
					t.Errorf("%s: complete %s=%q = %v, want %v", c.who, c.arg, c.val, got, c.want)
				}
			}
		})
	}
}
