package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// TestPatchSettings: every sessions.patch setting keeps OpenClaw's three
// states — absent leaves it, null clears it, a value must be valid for its
// field ("" and blanks included: they are refused, never read as "clear";
// OpenClaw's gateway methods, "each value may be null to clear").
func TestPatchSettings(t *testing.T) {
	type setting struct {
		name   string
		field  func(*api.PatchRequest) *api.Nullable
		read   func(domain.Session) string
		valid  string // a value that sets it, stored as stored
		stored string
	}
	settings := []setting{
		{"sendPolicy", func(r *api.PatchRequest) *api.Nullable { return &r.SendPolicy },
			func(s domain.Session) string { return s.SendPolicy }, " Deny ", "deny"},
		{"model", func(r *api.PatchRequest) *api.Nullable { return &r.Model },
			func(s domain.Session) string { return s.ModelOverride }, "script/echo", "script/echo"},
		{"thinkingLevel", func(r *api.PatchRequest) *api.Nullable { return &r.ThinkingLevel },
			func(s domain.Session) string { return s.ThinkingLevel }, "MED", "medium"},
		{"verboseLevel", func(r *api.PatchRequest) *api.Nullable { return &r.VerboseLevel },
			func(s domain.Session) string { return s.VerboseLevel }, "yes", "on"},
	}
	refusals := map[string]string{
		"sendPolicy":    `invalid sendPolicy (use "allow"|"deny")`,
		"model":         "invalid model: empty",
		"thinkingLevel": "invalid thinkingLevel (use off|minimal|low|medium|high)",
		"verboseLevel":  "invalid verboseLevel (use off|on|full)",
	}
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	op := api.Operator()
	for _, st := range settings {
		key := "agent:main:patch-" + strings.ToLower(st.name)
		patch := func(n api.Nullable) (domain.Session, error) {
			r := api.PatchRequest{Key: key}
			*st.field(&r) = n
			return h.e.Patch(ctx, op, r)
		}
		t.Run(st.name, func(t *testing.T) {
			s, err := patch(api.SetValue(st.valid))
			if err != nil || st.read(s) != st.stored {
				t.Fatalf("set %q = %q, %v; want %q", st.valid, st.read(s), err, st.stored)
			}
			for _, bad := range []string{"", "  ", "inherit"} {
				if st.name == "model" && bad == "inherit" {
					continue // not a model ref either, but refused by the resolver's words
				}
				_, err := patch(api.SetValue(bad))
				if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != refusals[st.name] {
					t.Fatalf("set %q = %v; want invalid %q", bad, err, refusals[st.name])
				}
			}
			if st.name == "model" {
				// Normalize passes a non-blank ref; the registry refuses
				// one it does not know, and the refused patch (label
				// included) changes nothing.
				_, err := h.e.Patch(ctx, op, api.PatchRequest{Key: key, Model: api.SetValue("nosuch/model"), Label: api.SetValue("never")})
				if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), "nosuch/model") {
					t.Fatalf("set an unknown model: %v; want invalid naming it", err)
				}
				if s, err := h.e.Session(ctx, key); err != nil || st.read(s) != st.stored || s.Label == "never" {
					t.Fatalf("after a refused patch: model %q label %q, %v; want them unchanged", st.read(s), s.Label, err)
				}
			}
			if s, err = h.e.Patch(ctx, op, api.PatchRequest{Key: key, Label: api.SetValue("kept " + st.name)}); err != nil || st.read(s) != st.stored {
				t.Fatalf("absent: %q, %v; want it kept (%q)", st.read(s), err, st.stored)
			}
			if s, err = patch(api.SetNull()); err != nil || st.read(s) != "" {
				t.Fatalf("null: %q, %v; want it cleared", st.read(s), err)
			}
		})
	}
}

// TestPatchModelKeepsThinkingValid: the check that a thinking level suits
// the model holds whichever the patches set first — a model switched to
// one that cannot think at the stored level is refused, and changes
// nothing.
func TestPatchModelKeepsThinkingValid(t *testing.T) {
	h := newHarness(t, nil, nil)
	ctx := context.Background()
	op := api.Operator()
	const key, plain = "agent:main:think-order", "other/model" // thinks only "off"
	if _, err := h.e.Patch(ctx, op, api.PatchRequest{Key: key, ThinkingLevel: api.SetValue("high")}); err != nil {
		t.Fatal(err)
	}
	_, err := h.e.Patch(ctx, op, api.PatchRequest{Key: key, Model: api.SetValue(plain)})
	if domain.ErrorCode(err) != domain.CodeInvalid || !strings.Contains(domain.ErrorMessage(err), `does not support thinking level "high"`) {
		t.Fatalf("model switch under thinking high = %v, want it refused", err)
	}
	s, err := h.e.Session(ctx, key)
	if err != nil || s.ModelOverride != "" || s.ThinkingLevel != "high" {
		t.Fatalf("after the refusal: model %q thinking %q, %v; want nothing changed", s.ModelOverride, s.ThinkingLevel, err)
	}
	// Both at once, or the level cleared first, is fine.
	if s, err = h.e.Patch(ctx, op, api.PatchRequest{Key: key, Model: api.SetValue(plain), ThinkingLevel: api.SetNull()}); err != nil || s.ModelOverride != plain {
		t.Fatalf("model with the level cleared = %+v, %v", s, err)
	}
	if s, err = h.e.Patch(ctx, op, api.PatchRequest{Key: key, Model: api.SetNull()}); err != nil || s.ModelOverride != "" {
		t.Fatalf("clearing the model = %+v, %v", s, err)
	}
}
