package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

// The announce step's user message (docs/design.md#the-reply-back-loop-and-the-announce-step) and what the built-in
// model wrote for it before its announce default was silence.
const (
	announcePrompt = "Agent-to-agent announce step."
	echoedAnnounce = "echo: " + announcePrompt
)

// a2aRows: out of the box a send posts no echoed announce,
// and the step prompts carry their own provenance.
func a2aRows(_ *world) []row {
	want := outcome{OK: true, Fields: map[string]string{
		"transcript has " + echoedAnnounce:  "false",
		"announce prompt's provenance kind": "a2a_step",
	}}
	return []row{{finding: "11", name: "out of the box a send posts no announce echo and step prompts are a2a_step",
		want: want,
		cells: []cell{
			custom(sCLI, "send; sessions history --raw", func(t *testing.T, w *world) outcome {
				key := "agent:main:a2a-cli"
				// In-process, send waits for the announce before it exits.
				if r := w.cli(t, w.inproc, "send", key, "hello target", "--json"); !r.ok {
					return fromCLI(r.exit, r.stdout, r.msg)
				}
				r := w.cli(t, w.inproc, "sessions", "history", key, "--raw", "--include-tools", "--json")
				if !r.ok {
					return fromCLI(r.exit, r.stdout, r.msg)
				}
				return transcriptFacts([]byte(r.stdout))
			}),
			custom(sHTTP, "POST /api/sessions/{key}/send; GET …/history?raw=true", func(t *testing.T, w *world) outcome {
				key := "agent:main:a2a-http"
				send := func() outcome {
					return w.httpOutcome(t, operatorToken, http.MethodPost, "/api/sessions/"+key+"/send", m{"message": "hello target", "timeoutSeconds": 30})
				}
				if o := settled(t, w, key, send); !o.OK {
					return o
				}
				st, b := w.httpDo(t, operatorToken, http.MethodGet, "/api/sessions/"+key+"/history?raw=true&includeTools=true&limit=100", nil)
				if st != http.StatusOK {
					return fromHTTP(st, b)
				}
				return transcriptFacts(b)
			}),
			custom(sWS, "tools.invoke sessions_send; chat.history", func(t *testing.T, w *world) outcome {
				key := "agent:main:a2a-ws"
				send := func() outcome {
					return w.wsTool(t, operatorToken, "", "sessions_send", m{"sessionKey": key, "message": "hello target", "timeoutSeconds": 30})
				}
				if o := settled(t, w, key, send); !o.OK {
					return o
				}
				f, err := w.wsFor(t, operatorToken).call(deadline(t, 30*time.Second), "chat.history", m{"sessionKey": key, "limit": 100})
				if err != nil {
					t.Fatalf("chat.history: %v", err)
				}
				if !f.OK {
					return fromWS(f)
				}
				return transcriptFacts(f.Payload)
			}),
			custom(sMCPStdio, "sessions_send; sessions_history", func(t *testing.T, w *world) outcome {
				key := "agent:main:a2a-stdio"
				send := func() outcome {
					return w.mcpStdioOutcome(t, "", "sessions_send", m{"sessionKey": key, "message": "hello target", "timeoutSeconds": 30})
				}
				if o := settled(t, w, key, send); !o.OK {
					return o
				}
				st, b := w.httpDo(t, operatorToken, http.MethodGet, "/api/sessions/"+key+"/history?raw=true&includeTools=true&limit=100", nil)
				if st != http.StatusOK {
					return fromHTTP(st, b)
				}
				return transcriptFacts(b)
			}),
			na(sCLIGW, "the send is the gateway's: the HTTP cell covers it"),
			na(sMCPHTTP, "the send is the gateway's: the MCP stdio cell covers it"),
		}}}
}

// settled makes a send into key as the operator and waits, on an operator
// WS client connected first, until key's primary run and its announce run
// have both ended (two lifecycle end events for key).
func settled(t *testing.T, w *world, key string, send func() outcome) outcome {
	ctx := deadline(t, 45*time.Second)
	c, err := dialWS(ctx, w.base, operatorToken)
	if err != nil {
		t.Fatalf("operator WS: %v", err)
	}
	defer c.close()
	o := send()
	if !o.OK {
		return o
	}
	phase := func(e wsFrame, phases ...string) bool {
		if e.Event != "agent" || eventSession(e) != key || jsonPath(e.Payload, "stream") != "lifecycle" {
			return false
		}
		return slices.Contains(phases, jsonPath(e.Payload, "data.phase"))
	}
	// Only runs that started on this connection count: the end of a run
	// from before it (a seeding chat whose waiter woke before its end
	// event left) would otherwise pass for the announce's.
	handled := map[string]bool{} // ends looked at, counted or not
	counted := 0
	for counted < 2 {
		if _, err := c.waitEvent(ctx, func(e wsFrame) bool {
			return phase(e, "end", "error") && !handled[jsonPath(e.Payload, "runId")]
		}); err != nil {
			return outcome{Code: "timeout", Msg: fmt.Sprintf("%s: saw %d of 2 run ends (primary, announce): %v", key, counted, err)}
		}
		started := map[string]bool{}
		for _, e := range c.eventsMatching(func(e wsFrame) bool { return phase(e, "start") }) {
			started[jsonPath(e.Payload, "runId")] = true
		}
		for _, e := range c.eventsMatching(func(e wsFrame) bool { return phase(e, "end", "error") }) {
			id := jsonPath(e.Payload, "runId")
			if handled[id] {
				continue
			}
			handled[id] = true
			if started[id] {
				counted++
			}
		}
	}
	return outcome{OK: true}
}

// transcriptFacts reads a history payload ({messages:[…]}): whether an
// assistant message echoes the announce prompt, and the provenance kind of
// the announce prompt itself.
func transcriptFacts(payload []byte) outcome {
	var h struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Provenance *struct {
				Kind string `json:"kind"`
			} `json:"provenance"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(payload, &h); err != nil {
		return outcome{Code: "invalid", Msg: "history is not {messages:[…]}: " + err.Error(), Payload: string(payload)}
	}
	echoed, kind := false, "(no announce prompt in the transcript)"
	for _, msg := range h.Messages {
		text := string(msg.Content)
		switch {
		case msg.Role == "assistant" && strings.Contains(text, echoedAnnounce):
			echoed = true
		case msg.Role == "user" && strings.Contains(text, announcePrompt):
			kind = "(none)"
			if msg.Provenance != nil {
				kind = msg.Provenance.Kind
			}
		}
	}
	return outcome{OK: true, Payload: string(payload), Fields: map[string]string{
		"transcript has " + echoedAnnounce:  fmt.Sprint(echoed),
		"announce prompt's provenance kind": kind,
	}}
}
