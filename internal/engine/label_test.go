package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestLabelsWithControlOrBidiCharactersAreRefused checks every way a label
// comes in — patch, chat, spawn, a send's label lookup, resolve and the
// sessions_send / sessions_spawn tools — refuses NUL, C0/C1 controls and
// bidirectional-formatting characters with an error naming the label, and
// stores nothing.
func TestLabelsWithControlOrBidiCharactersAreRefused(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	op := api.Operator()
	asMain := op.ActingAs("agent:main:main")
	bad := map[string]string{
		"NUL":           "a\x00b",
		"escape":        "red\x1b[31m",
		"newline":       "two\nlines",
		"C1 CSI":        "c1\u009b31m",
		"bidi override": "evil\u202egnp.exe",
		"bidi isolate":  "x\u2066y\u2069",
		"bidi mark":     "rtl\u200f",
	}
	for name, label := range bad {
		t.Run(name, func(t *testing.T) {
			wantInvalid := func(what string, err error) {
				t.Helper()
				if domain.ErrorCode(err) != domain.CodeInvalid || !strings.HasPrefix(domain.ErrorMessage(err), "invalid label: ") {
					t.Errorf("%s: err = %v, want an invalid-label error", what, err)
				}
			}
			_, err := h.e.Patch(ctx, op, api.PatchRequest{Key: "main", Label: api.SetValue(label)})
			wantInvalid("patch", err)
			_, err = h.e.Chat(ctx, op, api.ChatRequest{SessionKey: "agent:main:labelled", Message: "hi", Label: label})
			wantInvalid("chat", err)
			_, err = h.e.Spawn(ctx, asMain, api.SpawnRequest{Task: "t", Label: label})
			wantInvalid("spawn", err)
			_, err = h.e.Resolve(ctx, op, api.ResolveRequest{Label: label})
			wantInvalid("resolve", err)
			res, err := h.e.Send(ctx, asMain, api.SendRequest{Label: label, Message: "hi"})
			if err != nil || res.Status != "error" || !strings.HasPrefix(res.Error, "invalid label: ") {
				t.Errorf("send by label = %+v, %v; want an invalid-label refusal", res, err)
			}
			for _, tool := range []string{api.ToolSessionsSend, api.ToolSessionsSpawn} {
				args, _ := json.Marshal(map[string]string{"label": label, "message": "hi"})
				if tool == api.ToolSessionsSpawn {
					args, _ = json.Marshal(map[string]string{"label": label, "task": "t"})
				}
				out := h.e.CallTool(ctx, asMain, tool, args)
				if !out.IsError || !strings.Contains(string(out.JSON()), "invalid label: ") {
					t.Errorf("%s: %s; want an invalid-label error", tool, out.JSON())
				}
			}
		})
	}
	rows, err := h.st.ListSessions(ctx, domain.SessionQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rows {
		if s.Label != "" {
			t.Errorf("session %s stored label %q", s.Key, s.Label)
		}
	}
	if runs, err := h.st.ListRuns(ctx, domain.RunQuery{}); err != nil || len(runs) != 0 {
		t.Fatalf("runs after refusals = %d, %v", len(runs), err)
	}
	// An ordinary label with spaces and non-ASCII letters is fine.
	ok := "  Recherche — notes ✓ "
	if s, err := h.e.Patch(ctx, op, api.PatchRequest{Key: "main", Label: api.SetValue(ok)}); err != nil || s.Label != "Recherche — notes ✓" {
		t.Fatalf("patch good label = %q, %v", s.Label, err)
	}
}

// TestPatchLabelStates checks the three states of sessions.patch's label
// (OpenClaw's gateway methods: each value may be null to clear; parseSessionLabel
// trims and refuses blank with `invalid label: empty`): null clears it,
// absent leaves it, and "" or blanks are refused and change nothing.
func TestPatchLabelStates(t *testing.T) {
	cases := []struct {
		name      string
		label     api.Nullable
		wantErr   string
		wantLabel string
	}{
		{name: "absent leaves it", label: api.Nullable{}, wantLabel: "notes"},
		{name: "null clears it", label: api.SetNull(), wantLabel: ""},
		{name: "a value sets it, trimmed", label: api.SetValue("  other "), wantLabel: "other"},
		{name: "empty is refused", label: api.SetValue(""), wantErr: "invalid label: empty", wantLabel: "notes"},
		{name: "blank is refused", label: api.SetValue(" \t "), wantErr: "invalid label: empty", wantLabel: "notes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			ctx := context.Background()
			op := api.Operator()
			if _, err := h.e.Patch(ctx, op, api.PatchRequest{Key: "main", Label: api.SetValue("notes")}); err != nil {
				t.Fatal(err)
			}
			_, err := h.e.Patch(ctx, op, api.PatchRequest{Key: "main", Label: tc.label, SendPolicy: api.SetValue("deny")})
			if tc.wantErr != "" {
				if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != tc.wantErr {
					t.Fatalf("patch = %v, want invalid %q", err, tc.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			s, err := h.e.Session(ctx, "agent:main:main")
			if err != nil {
				t.Fatal(err)
			}
			// A refused patch changes none of its fields.
			wantPolicy := "deny"
			if tc.wantErr != "" {
				wantPolicy = ""
			}
			if s.Label != tc.wantLabel || s.SendPolicy != wantPolicy {
				t.Errorf("session label %q, sendPolicy %q; want %q, %q", s.Label, s.SendPolicy, tc.wantLabel, wantPolicy)
			}
		})
	}
}
