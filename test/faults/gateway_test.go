package faults

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/switchboard-go/switchboard/internal/testkit"
)

// faultConfig is the gateway's config: the offline script model with a
// slow turn, a turn that sends to another session (an agent-to-agent
// exchange with reply-back turns and an announce step), a turn that spawns
// a child with an attachment, and quick children.
const faultConfig = `{
  tools: {
    sessions: { visibility: "all" },
    sessions_spawn: { attachments: { enabled: true } },
  },
  session: { agentToAgent: { maxPingPongTurns: 2 } },
  models: { providers: { script: { rules: [
    { when: { session: ":subagent:" }, reply: "child result", delayMs: 30 },
    { when: { session: "peer", system: "announce" }, reply: "announced" },
    { when: { message: "^slow" }, reply: "slow done", delayMs: 400 },
    { when: { message: "^relay" }, toolCall: { name: "sessions_send", arguments: { sessionKey: "agent:main:peer", message: "ping", timeoutSeconds: 0 } } },
    { when: { message: "^spawn" }, toolCall: { name: "sessions_spawn", arguments: { task: "child work", cleanup: "delete", attachments: [{ name: "a.txt", content: "hello" }] } } },
  ] } } },
}`

// gateway is one running switchboard gateway process; the test ends it
// (kill, stop) and starts the next on the same state dir.
type gateway struct{ *testkit.Gateway }

// startGateway runs `switchboard gateway` on dir and returns once it
// listens.
func startGateway(t *testing.T, dir, name string) *gateway {
	t.Helper()
	return &gateway{testkit.StartGateway(t, testkit.GatewayOptions{Name: name, Dir: dir, KillAtEnd: true})}
}

func (g *gateway) kill() { g.Kill() }
func (g *gateway) stop() { g.Stop() }

// call sends a JSON request and decodes the answer into out (when set);
// it returns the HTTP status (0 when the request failed).
func (g *gateway) call(method, path string, body any, out any) (int, []byte) {
	code, b, err := g.Do(method, path, body)
	if err != nil {
		return 0, []byte(err.Error())
	}
	if out != nil && code < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			return 0, []byte(fmt.Sprintf("decode %s: %v", b, err))
		}
	}
	return code, b
}

type chatAnswer struct {
	Run *struct {
		RunID  string `json:"runId"`
		Status string `json:"status"`
	} `json:"run"`
}

type spawnAnswer struct {
	Status          string `json:"status"`
	RunID           string `json:"runId"`
	ChildSessionKey string `json:"childSessionKey"`
}
