package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestRefusedSendHasNoRunID(t *testing.T) {
	h := newHarness(t, nil, nil) // tree visibility: research is not main's
	ctx := context.Background()
	asMain := api.Operator().ActingAs("agent:main:main")
	for name, req := range map[string]api.SendRequest{
		"forbidden":       {SessionKey: research, Message: "hi"},
		"unknown label":   {Label: "nobody", Message: "hi"},
		"key and label":   {SessionKey: research, Label: "x", Message: "hi"},
		"malformed key":   {SessionKey: "agent:main:", Message: "hi"},
		"unknown session": {SessionKey: "d386f8db-6fdf-4c7e", Message: "hi"},
	} {
		res, err := h.e.Send(ctx, asMain, req)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if res.Status != "forbidden" && res.Status != "error" {
			t.Errorf("%s: status %q, want a refusal", name, res.Status)
		}
		if res.RunID != "" {
			t.Errorf("%s: runId %q for a send that started no run", name, res.RunID)
		}
	}
	out := h.e.CallTool(ctx, asMain, api.ToolSessionsSend, []byte(`{"sessionKey":"agent:main:research","message":"hi"}`))
	if !out.IsError || strings.Contains(string(out.JSON()), "runId") {
		t.Fatalf("forbidden tool call = %s", out.JSON())
	}
	if runs, err := h.st.ListRuns(ctx, domain.RunQuery{}); err != nil || len(runs) != 0 {
		t.Fatalf("runs after refusals = %d, %v", len(runs), err)
	}
}

func TestListKindsAreValidatedForEverySurface(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	tooMany := make([]string, api.ListKinds.Max+1)
	for i := range tooMany {
		tooMany[i] = "main"
	}
	for name, kinds := range map[string][]string{
		"unknown kind": {"bogus"},
		"too many":     tooMany,
	} {
		_, err := h.e.ListSessions(ctx, api.Operator(), api.ListRequest{Kinds: kinds})
		if domain.ErrorCode(err) != domain.CodeInvalid {
			t.Errorf("%s: err = %v, want invalid", name, err)
		}
	}
	if _, err := h.e.ListSessions(ctx, api.Operator(), api.ListRequest{Kinds: []string{" Main ", "group"}}); err != nil {
		t.Fatalf("known kinds: %v", err)
	}
}
