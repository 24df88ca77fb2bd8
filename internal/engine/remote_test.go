package engine

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-go/switchboard/internal/a2a/remote"
	"github.com/switchboard-go/switchboard/internal/a2a/remote/remotetest"
	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/sessions"
)

const planner = "agent:planner:main"

// remoteHarness is an engine whose a2a.remotes has "planner" at a fake A2A
// server, with the cross-agent rules open unless mutate closes them.
func remoteHarness(t *testing.T, rules []config.ScriptRule, mutate func(*config.Config)) (*harness, *remotetest.Server) {
	t.Helper()
	f := remotetest.New()
	t.Cleanup(f.Close)
	h := newHarness(t, rules, func(c *config.Config) {
		c.Tools.Sessions.Visibility = "all"
		c.Tools.AgentToAgent.Enabled = true
		c.A2A.Remotes = []config.A2ARemote{{ID: "planner", URL: f.CardURL()}}
		c.A2A.SSRFPolicy.DangerouslyAllowPrivateNetwork = true // the fake remote serves on loopback
		if mutate != nil {
			mutate(c)
		}
	})
	return h, f
}

func TestSendToRemoteAgentRecordsTheExchange(t *testing.T) {
	h, f := remoteHarness(t, nil, nil)
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"plan a trip"}`))
	if res.Status != "ok" || res.Reply != "fake echo: plan a trip" || res.SessionKey != planner || res.RunID == "" {
		t.Fatalf("result = %+v", res)
	}
	got := f.Received()
	if len(got) != 1 || got[0].ContextID != "main" || got[0].Text != "plan a trip" || got[0].MessageID != res.RunID {
		t.Fatalf("remote received %+v", got)
	}
	if chain := remote.ChainOf(got[0].Metadata); !reflect.DeepEqual(chain, []string{planner}) {
		t.Fatalf("chain on the wire = %v, want [%s]", chain, planner)
	}
	msgs := h.history(planner)
	want := []string{"user: plan a trip", "assistant: fake echo: plan a trip"}
	if strings.Join(texts(msgs), "|") != strings.Join(want, "|") {
		t.Fatalf("local record = %q, want %q", texts(msgs), want)
	}
	p := msgs[0].Provenance
	if p == nil || p.Kind != domain.ProvenanceInterSession || p.SourceTool != "sessions_send" || p.SourceSessionKey != "agent:main:main" {
		t.Fatalf("provenance = %+v", p)
	}
	s, err := h.st.GetSession(t.Context(), planner)
	if err != nil || s.Channel != sessions.RemoteChannel || s.AgentID != "planner" {
		t.Fatalf("local session = %+v, %v", s, err)
	}
	// Reply-back turns and the announce are local steps: none follow.
	for _, kind := range []domain.RunKind{domain.RunKindReply, domain.RunKindAnnounce} {
		if n := len(runsOf(h, planner, kind)) + len(runsOf(h, "agent:main:main", kind)); n != 0 {
			t.Fatalf("%s runs after a remote send = %d, want 0", kind, n)
		}
	}
}

func TestSendToRemoteFromARunCarriesTheChain(t *testing.T) {
	h, f := remoteHarness(t, []config.ScriptRule{
		toolCall(config.ScriptWhen{Session: ":main:main$", Role: "user", Message: "^ask planner (.*)$"}, "sessions_send",
			map[string]any{"sessionKey": planner, "message": "$1"}),
	}, nil)
	r := h.chat("main", "ask planner where to")
	if r.Status != domain.RunOK || !strings.Contains(r.Reply, "fake echo: where to") {
		t.Fatalf("main run = %s %q %s", r.Status, r.Reply, r.Error)
	}
	got := f.Received()
	if len(got) != 1 {
		t.Fatalf("remote received %d messages", len(got))
	}
	if chain := remote.ChainOf(got[0].Metadata); !reflect.DeepEqual(chain, []string{"agent:main:main", planner}) {
		t.Fatalf("chain on the wire = %v", chain)
	}
	if n := len(runsOf(h, "agent:main:main", domain.RunKindReply)); n != 0 {
		t.Fatalf("reply-back turns = %d, want 0 for a remote target", n)
	}
}

func TestSendToRemoteStatuses(t *testing.T) {
	h, f := remoteHarness(t, nil, nil)
	f.Answer = func(r remotetest.Received) remotetest.Answer {
		switch r.Text {
		case "fail":
			return remotetest.Answer{State: wire.TaskStateFailed, Reply: "no plan"}
		case "slow":
			return remotetest.Answer{Reply: "done at last", Polls: 3}
		case "forever":
			return remotetest.Answer{Polls: 1 << 30}
		}
		return remotetest.Answer{Reply: "ok " + r.Text}
	}
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"fail"}`))
	if res.Status != "error" || !strings.Contains(res.Error, "remote planner") || !strings.Contains(res.Error, "no plan") {
		t.Fatalf("failed task: %+v", res)
	}
	// timeoutSeconds 0: accepted, and the exchange still completes and is recorded.
	res = sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:later","message":"slow","timeoutSeconds":0}`))
	if res.Status != "accepted" || res.RunID == "" {
		t.Fatalf("fire and forget: %+v", res)
	}
	run, err := h.e.waitRun(t.Context(), res.RunID, 15*time.Second)
	if err != nil || run.Status != domain.RunOK || run.Reply != "done at last" {
		t.Fatalf("accepted run = %+v, %v", run, err)
	}
	if msgs := texts(h.history("agent:planner:later")); len(msgs) != 2 || msgs[1] != "assistant: done at last" {
		t.Fatalf("recorded = %q", msgs)
	}
	// A remote that never answers: timeout at timeoutSeconds, not later.
	start := time.Now()
	res = sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:stuck","message":"forever","timeoutSeconds":1}`))
	if res.Status != "timeout" || res.RunID == "" {
		t.Fatalf("stuck remote: %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("timeout answered after %v", d)
	}
}

func TestSendToRemoteUnreachableAndUnauthorized(t *testing.T) {
	h, f := remoteHarness(t, nil, nil)
	f.Token = "right"
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"hi","timeoutSeconds":10}`))
	if res.Status != "error" || !strings.Contains(res.Error, "remote planner") || !strings.Contains(res.Error, "401") {
		t.Fatalf("401: %+v", res)
	}
	f.Close()
	res = sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"hi","timeoutSeconds":10}`))
	if res.Status != "error" || !strings.Contains(res.Error, "remote planner: unreachable") {
		t.Fatalf("unreachable: %+v", res)
	}
}

func TestSendToRemoteFollowsTheCrossAgentRules(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*config.Config)
		want   string
	}{
		{"visibility agent", func(c *config.Config) { c.Tools.Sessions.Visibility = "agent" }, "Set tools.sessions.visibility=all"},
		{"a2a disabled", func(c *config.Config) { c.Tools.AgentToAgent.Enabled = false }, "Set tools.agentToAgent.enabled=true"},
		{"not allowed", func(c *config.Config) { c.Tools.AgentToAgent.Allow = []string{"main"} }, "denied by tools.agentToAgent.allow"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, f := remoteHarness(t, nil, tc.mutate)
			res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"hi"}`))
			if res.Status != "forbidden" || !strings.Contains(res.Error, tc.want) {
				t.Fatalf("result = %+v, want forbidden with %q", res, tc.want)
			}
			if n := len(f.Received()); n != 0 {
				t.Fatalf("a refused send reached the remote (%d messages)", n)
			}
			list, err := h.e.AgentsList(t.Context(), api.Principal{Name: "t", Scopes: api.ScopeRead, As: "agent:main:main"})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Remotes) != 1 || list.Remotes[0].ID != "planner" || list.Remotes[0].Allowed {
				t.Fatalf("agents_list remotes = %+v, want planner not allowed", list.Remotes)
			}
		})
	}
}

func TestAgentsListRemotes(t *testing.T) {
	h, f := remoteHarness(t, nil, nil)
	out := h.call(Requester{}, api.ToolAgentsList, `{}`)
	list, ok := out.Payload.(api.AgentsListResult)
	if !ok {
		t.Fatalf("payload = %#v", out.Payload)
	}
	// A session sees the remote's id, not where it lives; the operator
	// sees its card URL.
	if len(list.Remotes) != 1 || list.Remotes[0] != (api.RemoteAgentInfo{ID: "planner", Allowed: true}) {
		t.Fatalf("remotes = %+v", list.Remotes)
	}
	op, err := h.e.AgentsList(t.Context(), api.Operator())
	if err != nil || len(op.Remotes) != 1 || op.Remotes[0] != (api.RemoteAgentInfo{ID: "planner", URL: f.CardURL(), Allowed: true}) {
		t.Fatalf("operator's remotes = %+v, %v", op.Remotes, err)
	}
	for _, a := range list.Agents {
		if a.ID == "planner" {
			t.Fatalf("a remote is listed among the spawn agents: %+v", list.Agents)
		}
	}
}

func TestArrivalStopsALoopThroughRemotes(t *testing.T) {
	h := newHarness(t, nil, func(c *config.Config) { c.Session.AgentToAgent.MaxHops = 3 })
	key := "agent:main:a2a:main"
	cases := []struct {
		chain []string
		want  string
	}{
		{[]string{"agent:x:main", key, "agent:main-gw:main"}, "already part of this chain"},
		{[]string{"a", "b", "c", "d"}, "session.agentToAgent.maxHops=3"},
	}
	for _, tc := range cases {
		_, err := h.e.chat(t.Context(), api.ChatRequest{SessionKey: key, Message: "hi", Channel: "a2a", Chain: tc.chain})
		if domain.ErrorCode(err) != domain.CodeForbidden || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("chain %v: err = %v, want forbidden with %q", tc.chain, err, tc.want)
		}
	}
	res, err := h.e.chat(t.Context(), api.ChatRequest{SessionKey: key, Message: "hi", Channel: "a2a", Chain: []string{"agent:x:main", "agent:main-gw:main"}})
	if err != nil {
		t.Fatal(err)
	}
	spec := mustSpec(t, res.Run)
	if !reflect.DeepEqual(spec.Chain, []string{"agent:x:main", "agent:main-gw:main"}) {
		t.Fatalf("run chain = %v", spec.Chain)
	}
}

func TestSendToRemoteFollowsTheSendPolicy(t *testing.T) {
	h, f := remoteHarness(t, nil, func(c *config.Config) {
		c.Session.SendPolicy = &config.SendPolicyConfig{Rules: []config.SendPolicyRule{
			{Match: config.SendPolicyMatch{Channel: "a2a"}, Action: "deny"}}, Default: "allow"}
	})
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"hi"}`))
	if res.Status != "error" || res.Error != "send blocked by session policy" || res.RunID != "" {
		t.Fatalf("result = %+v", res)
	}
	if n := len(f.Received()); n != 0 {
		t.Fatalf("a blocked send reached the remote (%d messages)", n)
	}
}

// A notify cannot reach a remote agent (A2A has no message that starts no
// task); a steer to one is a followup (a remote run has no steps to join).
func TestSendModesToRemoteAgents(t *testing.T) {
	h, f := remoteHarness(t, nil, nil)
	out := h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"fyi","mode":"notify"}`)
	if res := sendResult(t, out); res.Status != "error" || !strings.Contains(res.Error, "cannot reach remote agent") || len(f.Received()) != 0 {
		t.Fatalf("notify to a remote = %s (remote received %d)", out.JSON(), len(f.Received()))
	}
	if msgs := h.history(planner); len(msgs) != 0 {
		t.Fatalf("a refused notify left %d messages in the local record", len(msgs))
	}
	res := sendResult(t, h.call(Requester{}, api.ToolSessionsSend, `{"sessionKey":"agent:planner:main","message":"plan","mode":"steer"}`))
	if res.Status != "ok" || res.Reply != "fake echo: plan" {
		t.Fatalf("steer to a remote = %+v; want the followup's reply", res)
	}
}

func TestSessionStatusOfARemoteAgentsSession(t *testing.T) {
	h, _ := remoteHarness(t, nil, nil)
	out := h.call(Requester{}, api.ToolSessionStatus, `{"sessionKey":"agent:planner:main"}`)
	if card, ok := out.Payload.(api.StatusResult); !ok || card.Model != "a2a/planner" {
		t.Fatalf("status of a remote session = %s", out.JSON())
	}
	out = h.call(Requester{}, api.ToolSessionStatus, `{"sessionKey":"agent:planner:main","model":"script"}`)
	if !out.IsError || !strings.Contains(string(out.JSON()), "remote agent") {
		t.Fatalf("model switch of a remote session = %s; want refused", out.JSON())
	}
}

func TestChatIntoARemoteSession(t *testing.T) {
	h, f := remoteHarness(t, nil, nil)
	r := h.chat("agent:planner:direct", "hello remote")
	if r.Status != domain.RunOK || r.Reply != "fake echo: hello remote" || r.TimeoutMs != sessions.RemoteRunTimeout().Milliseconds() {
		t.Fatalf("chat run = %s %q timeoutMs=%d %s", r.Status, r.Reply, r.TimeoutMs, r.Error)
	}
	if got := f.Received(); len(got) != 1 || got[0].ContextID != "direct" {
		t.Fatalf("remote received %+v", got)
	}
}
