package a2a

import (
	"encoding/json"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// update is one artifact update or status update of a stream, in either
// generation's shape.
type update struct {
	artifact  bool
	text      string
	appendTo  bool
	lastChunk bool
	state     string
}

// updatesOf reads a stream's events: 1.0 StreamResponse or 0.3 kinds.
func updatesOf(t *testing.T, evs []wire.Response, legacy bool) []update {
	t.Helper()
	var out []update
	for _, e := range evs {
		if legacy {
			var ev struct {
				Kind     string `json:"kind"`
				Append   bool   `json:"append"`
				Last     bool   `json:"lastChunk"`
				Artifact struct {
					Parts []struct {
						Text string `json:"text"`
					} `json:"parts"`
				} `json:"artifact"`
				Status struct {
					State string `json:"state"`
				} `json:"status"`
			}
			if err := json.Unmarshal(e.Result, &ev); err != nil {
				t.Fatalf("0.3 event %s: %v", e.Result, err)
			}
			switch ev.Kind {
			case "artifact-update":
				u := update{artifact: true, appendTo: ev.Append, lastChunk: ev.Last}
				for _, p := range ev.Artifact.Parts {
					u.text += p.Text
				}
				out = append(out, u)
			case "status-update":
				out = append(out, update{state: ev.Status.State})
			}
			continue
		}
		sr := decode[wire.StreamResponse](t, e.Result)
		switch {
		case sr.ArtifactUpdate != nil:
			a := sr.ArtifactUpdate
			out = append(out, update{artifact: true, text: textOf(a.Artifact.Parts), appendTo: a.Append, lastChunk: a.LastChunk})
		case sr.StatusUpdate != nil:
			out = append(out, update{state: string(sr.StatusUpdate.Status.State)})
		}
	}
	return out
}

// TestStreamingDeltas: a reply the model streams reaches the client as
// several artifact updates before the final status, the first one
// replacing (append false) and the rest appending, the last one marked
// lastChunk; applied in order they equal the reply, on both generations.
func TestStreamingDeltas(t *testing.T) {
	h := newHarness(t)
	cases := []struct {
		name, method string
		legacy       bool
		params       any
		final        string
	}{
		{"1.0", "SendStreamingMessage", false, map[string]any{"message": userMsg("cd-1", "cd", "chunk please")}, string(wire.TaskStateCompleted)},
		{"0.3", "message/stream", true, map[string]any{"message": map[string]any{"kind": "message", "messageId": "cd-2",
			"role": "user", "parts": []any{map[string]any{"kind": "text", "text": "chunk again"}}}}, "completed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, evs := h.stream(t, "operator", "main", tc.method, tc.params)
			ups := updatesOf(t, evs, tc.legacy)
			var held string
			pieces, lastAt, finalAt := 0, -1, -1
			for i, u := range ups {
				if !u.artifact {
					if u.state == tc.final {
						finalAt = i
					}
					continue
				}
				if finalAt >= 0 {
					t.Fatalf("artifact update after the final status: %+v", ups)
				}
				if lastAt >= 0 {
					t.Fatalf("artifact update after lastChunk: %+v", ups)
				}
				if u.appendTo {
					held += u.text
				} else {
					if pieces > 0 {
						t.Errorf("update %d replaces the artifact mid-stream: %+v", i, u)
					}
					held = u.text
				}
				if u.lastChunk {
					lastAt = i
				}
				pieces++
			}
			if pieces < 3 {
				t.Errorf("%d artifact updates, want several (streamed): %+v", pieces, ups)
			}
			if lastAt < 0 || finalAt < lastAt {
				t.Errorf("lastChunk at %d, final status at %d: %+v", lastAt, finalAt, ups)
			}
			if held != chunkedReply {
				t.Errorf("artifact applied in order = %q, want %q", held, chunkedReply)
			}
			if tc.legacy {
				return
			}
			// The task itself carries the reply whole, in one artifact.
			first := decode[wire.StreamResponse](t, evs[0].Result)
			if first.Task == nil {
				t.Fatalf("first event is not the task: %s", evs[0].Result)
			}
			g := h.rpc(t, "operator", "main", "GetTask", map[string]any{"id": first.Task.ID})
			task := decode[wire.Task](t, g.resp.Result)
			if len(task.Artifacts) != 1 || textOf(task.Artifacts[0].Parts) != chunkedReply {
				t.Errorf("GetTask artifacts = %+v, want the whole reply once", task.Artifacts)
			}
		})
	}
}

// TestReplyStream: what a client holds after applying the updates equals
// the reply whatever the deltas were: several steps, a dropped event, a
// late event of an earlier step, a reply that differs from the stream.
func TestReplyStream(t *testing.T) {
	type d struct {
		step      int
		text, acc string
	}
	cases := []struct {
		name   string
		deltas []d
		reply  string
		// wantLastAppend: the final update appends (else replaces).
		wantLastAppend bool
	}{
		{"one step", []d{{0, "ab", "ab"}, {0, "cd", "abcd"}}, "abcdef", true},
		{"dropped event", []d{{0, "ab", "ab"}, {0, "ef", "abcdef"}}, "abcdef", true},
		{"two steps", []d{{0, "look", "look"}, {1, "ans", "ans"}, {1, "wer", "answer"}}, "answer", true},
		{"late earlier step", []d{{1, "ans", "ans"}, {0, "x", "lookx"}, {1, "wer", "answer"}}, "answer", true},
		{"reply differs", []d{{0, "ab", "ab"}}, "xyz", false},
		{"nothing streamed", nil, "xyz", false},
		{"tool-call step text only", []d{{0, "let me", "let me"}}, "done", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &replyStream{runID: "r1"}
			var held string
			apply := func(a wire.Artifact, appendTo bool) {
				if a.ArtifactID != artifactID("r1") {
					t.Fatalf("artifact id %q", a.ArtifactID)
				}
				if appendTo {
					held += textOf(a.Parts)
				} else {
					held = textOf(a.Parts)
				}
			}
			for _, x := range tc.deltas {
				ev := &domain.RunDelta{RunID: "r1", Step: x.step, Accumulated: x.acc}
				ev.Delta.Text = x.text
				if a, appendTo, ok := r.piece(ev); ok {
					apply(a, appendTo)
				}
			}
			whole, _ := replyArtifact(okRun("r1", tc.reply))
			a, appendTo := r.last(whole, tc.reply)
			if appendTo != tc.wantLastAppend {
				t.Errorf("last update append = %v, want %v", appendTo, tc.wantLastAppend)
			}
			apply(a, appendTo)
			if held != tc.reply {
				t.Errorf("held %q, want %q", held, tc.reply)
			}
		})
	}
	// Other runs' deltas and non-text pieces are not sent.
	r := &replyStream{runID: "r1"}
	if _, _, ok := r.piece(&domain.RunDelta{RunID: "r2", Accumulated: "x", Delta: domain.ModelDelta{Text: "x"}}); ok {
		t.Error("another run's delta was sent")
	}
	if _, _, ok := r.piece(&domain.RunDelta{RunID: "r1", Delta: domain.ModelDelta{Thinking: "hm"}}); ok {
		t.Error("a reasoning delta was sent")
	}
}

func okRun(id, reply string) domain.Run {
	return domain.Run{ID: id, Status: domain.RunOK, Reply: reply}
}
