package exchange

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-go/switchboard/internal/domain"
)

const (
	req = "agent:main:main"
	tgt = "agent:main:research"
)

// step is what a follow-up is, reduced to what the table compares.
type step struct {
	Kind                                              domain.RunKind
	Session, Requester, Parent, Idem, Message, Header string
	Turn                                              int
	ProvKind, ProvStep, ProvSource                    string
}

func summarize(f FollowUp) step {
	s := step{Kind: f.Kind, Session: f.SessionKey, Requester: f.RequesterKey, Parent: f.ParentRunID,
		Idem: f.IdempotencyKey, Message: f.Text(), Header: strings.SplitN(f.System, "\n", 2)[0], Turn: f.State.Turn}
	if p := f.Message.Provenance; p != nil {
		s.ProvKind, s.ProvStep, s.ProvSource = p.Kind, p.Step, p.SourceSessionKey
	}
	return s
}

func TestNext(t *testing.T) {
	base := State{RequesterKey: req, RequesterChannel: "webchat", TargetKey: tgt, TargetChannel: "internal",
		InRun: true, MaxTurns: 2, Original: "hello?"}
	with := func(f func(*State)) State { s := base; f(&s); return s }
	ended := func(kind domain.RunKind, status domain.RunStatus, reply string) domain.Run {
		return domain.Run{ID: "r1", Kind: kind, Status: status, Reply: reply, SessionKey: tgt}
	}
	replyTo := func(session, other string, turn int, msg string) step {
		return step{Kind: domain.RunKindReply, Session: session, Requester: other, Parent: "r1", Idem: "a2a-turn:r1",
			Message: msg, Header: domain.A2AHeaderReply, Turn: turn,
			ProvKind: domain.ProvenanceA2AStep, ProvStep: domain.A2AStepReply, ProvSource: other}
	}
	announce := func(turn int) step {
		return step{Kind: domain.RunKindAnnounce, Session: tgt, Requester: req, Parent: "r1", Idem: "a2a-announce:r1",
			Message: domain.A2AAnnounceText, Header: domain.A2AHeaderAnnounce, Turn: turn,
			ProvKind: domain.ProvenanceA2AStep, ProvStep: domain.A2AStepAnnounce, ProvSource: req}
	}
	tests := []struct {
		name  string
		state State
		run   domain.Run
		want  []step
		post  string // the announce text posted, if any
	}{
		{"send answered in a run starts turn 1 on the requester", base, ended(domain.RunKindSend, domain.RunOK, "hi"),
			[]step{replyTo(req, tgt, 1, "hi")}, ""},
		{"send answered outside a run goes straight to the announce", with(func(s *State) { s.InRun = false }),
			ended(domain.RunKindSend, domain.RunOK, "hi"), []step{announce(0)}, ""},
		{"no turns allowed: announce", with(func(s *State) { s.MaxTurns = 0 }),
			ended(domain.RunKindSend, domain.RunOK, "hi"), []step{announce(0)}, ""},
		{"a session sending to itself gets no turns", with(func(s *State) { s.TargetKey = req }),
			domain.Run{ID: "r1", Kind: domain.RunKindSend, Status: domain.RunOK, Reply: "hi"},
			[]step{{Kind: domain.RunKindAnnounce, Session: req, Requester: req, Parent: "r1", Idem: "a2a-announce:r1",
				Message: domain.A2AAnnounceText, Header: domain.A2AHeaderAnnounce,
				ProvKind: domain.ProvenanceA2AStep, ProvStep: domain.A2AStepAnnounce, ProvSource: req}}, ""},
		{"send failed: nothing follows", base, ended(domain.RunKindSend, domain.RunError, "hi"), nil, ""},
		{"send silent (NO_REPLY): nothing follows", base, ended(domain.RunKindSend, domain.RunOK, " NO_REPLY "), nil, ""},
		{"send empty: nothing follows", base, ended(domain.RunKindSend, domain.RunOK, ""), nil, ""},
		{"turn 1 replied: turn 2 on the target", with(func(s *State) { s.Turn = 1 }),
			ended(domain.RunKindReply, domain.RunOK, "more"), []step{replyTo(tgt, req, 2, "more")}, ""},
		{"last turn replied: announce", with(func(s *State) { s.Turn = 2 }),
			ended(domain.RunKindReply, domain.RunOK, "done"), []step{announce(2)}, ""},
		{"REPLY_SKIP ends the turns: announce", with(func(s *State) { s.Turn = 1 }),
			ended(domain.RunKindReply, domain.RunOK, "REPLY_SKIP"), []step{announce(1)}, ""},
		{"a failed turn: announce", with(func(s *State) { s.Turn = 1 }),
			ended(domain.RunKindReply, domain.RunTimeout, ""), []step{announce(1)}, ""},
		{"announce replied: posted", base, ended(domain.RunKindAnnounce, domain.RunOK, "  news  "), nil, "news"},
		{"ANNOUNCE_SKIP: silent", base, ended(domain.RunKindAnnounce, domain.RunOK, "ANNOUNCE_SKIP"), nil, ""},
		{"announce failed: silent", base, ended(domain.RunKindAnnounce, domain.RunError, "x"), nil, ""},
		{"other kinds: nothing", base, ended(domain.RunKindChat, domain.RunOK, "x"), nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Next(tt.state, []string{"agent:main:a"}, tt.run)
			var steps []step
			for _, f := range got.Runs {
				steps = append(steps, summarize(f))
			}
			if d := cmp.Diff(tt.want, steps); d != "" {
				t.Errorf("runs (-want +got):\n%s", d)
			}
			post := ""
			if got.Post != nil {
				var p map[string]string
				if err := json.Unmarshal(got.Post.Payload, &p); err != nil {
					t.Fatal(err)
				}
				post = p["text"]
				if got.Post.Kind != domain.OutboxAnnounce || got.Post.Channel != "internal" || got.Post.IdempotencyKey != "announce:r1" || p["requesterSessionKey"] != req {
					t.Errorf("post = %+v %v", got.Post, p)
				}
			}
			if post != tt.post {
				t.Errorf("posted %q, want %q", post, tt.post)
			}
		})
	}
}

// The state carried to the next step records the replies: round one and
// the latest, so the announce context can quote both.
func TestNextCarriesReplies(t *testing.T) {
	s := State{RequesterKey: req, TargetKey: tgt, InRun: true, MaxTurns: 1, Original: "q"}
	first := Next(s, nil, domain.Run{ID: "a", Kind: domain.RunKindSend, Status: domain.RunOK, Reply: "one"}).Runs[0]
	last := Next(first.State, first.Chain, domain.Run{ID: "b", Kind: domain.RunKindReply, Status: domain.RunOK, Reply: "two"}).Runs[0]
	if last.Kind != domain.RunKindAnnounce || last.State.RoundOne != "one" || last.State.Latest != "two" {
		t.Fatalf("announce state = %+v", last.State)
	}
	for _, want := range []string{"Round 1 reply: one", "Latest reply: two", "Original request: q"} {
		if !strings.Contains(last.System, want) {
			t.Errorf("announce context lacks %q:\n%s", want, last.System)
		}
	}
}

// Each step's context starts with its own header and never holds another's.
func TestContextsHaveOneHeader(t *testing.T) {
	s := State{RequesterKey: req, TargetKey: tgt, MaxTurns: 2, Turn: 1}
	headers := []string{domain.A2AHeaderMessage, domain.A2AHeaderReply, domain.A2AHeaderAnnounce}
	for i, text := range []string{MessageContext(req, "", tgt, ""), ReplyContext(s, true), AnnounceContext(s)} {
		for j, h := range headers {
			if has := strings.Contains(text, h); has != (i == j) {
				t.Errorf("context %d contains header %q = %v", i, h, has)
			}
		}
		if !strings.HasPrefix(text, headers[i]+"\n") {
			t.Errorf("context %d does not start with its header", i)
		}
	}
}

func TestExtend(t *testing.T) {
	tests := []struct {
		name    string
		chain   []string
		target  string
		maxHops int
		want    []string
		refused string
	}{
		{"first hop", nil, tgt, 0, []string{req}, ""},
		{"a new session", []string{"agent:main:a"}, tgt, 0, []string{"agent:main:a", req}, ""},
		{"back into the chain", []string{tgt}, tgt, 0, nil, "already part of this chain"},
		{"back to the sender", nil, req, 0, nil, "already part of this chain"},
		{"over maxHops", []string{"agent:main:a", "agent:main:b"}, tgt, 2, nil, "already has 2 hops (agent:main:a → agent:main:b → " + req + " → " + tgt + ";"},
		{"at maxHops", []string{"agent:main:a"}, tgt, 2, []string{"agent:main:a", req}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, refused := Extend(tt.chain, req, tt.target, "display", tt.maxHops)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("chain (-want +got):\n%s", d)
			}
			if (tt.refused == "") != (refused == "") || !strings.Contains(refused, tt.refused) {
				t.Errorf("refusal = %q, want %q", refused, tt.refused)
			}
		})
	}
}

func TestSilent(t *testing.T) {
	for reply, want := range map[string]bool{"": true, " REPLY_SKIP\n": true, "ANNOUNCE_SKIP": true, "NO_REPLY": true,
		"no_reply": false, "REPLY_SKIP please": false, "ok": false} {
		if got := Silent(reply); got != want {
			t.Errorf("Silent(%q) = %v, want %v", reply, got, want)
		}
	}
}
