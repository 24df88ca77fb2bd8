package api

import (
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// state describes a Nullable for a comparison: absent, null or =value.
func state(n Nullable) string {
	if v, ok := n.Value(); ok {
		return "=" + v
	}
	if n.IsNull() {
		return "null"
	}
	return "absent"
}

// TestPatchNormalize: each sessions.patch field keeps its three states —
// absent stays absent, null stays null (clear), a value is normalized or
// refused naming the field ("" and blanks included: never "clear").
func TestPatchNormalize(t *testing.T) {
	type tc struct {
		in   Nullable
		want string // state after Normalize, or the refusal's message
	}
	absent, null := Nullable{}, SetNull()
	long := strings.Repeat("x", int(LabelChars.Max)+1)
	fields := map[string][]tc{
		"label": {
			{absent, "absent"}, {null, "null"}, {SetValue(" research "), "=research"},
			{SetValue(""), "invalid label: empty"}, {SetValue(" \t "), "invalid label: empty"},
			{SetValue(long), "invalid label: too long (max 512)"},
		},
		"sendPolicy": {
			{absent, "absent"}, {null, "null"}, {SetValue(" Deny "), "=deny"}, {SetValue("allow"), "=allow"},
			{SetValue(""), `invalid sendPolicy (use "allow"|"deny")`},
			{SetValue("  "), `invalid sendPolicy (use "allow"|"deny")`},
			{SetValue("inherit"), `invalid sendPolicy (use "allow"|"deny")`},
			{SetValue("on"), `invalid sendPolicy (use "allow"|"deny")`},
		},
		"model": {
			{absent, "absent"}, {null, "null"}, {SetValue(" script/echo "), "=script/echo"},
			{SetValue(""), "invalid model: empty"}, {SetValue("   "), "invalid model: empty"},
		},
		"thinkingLevel": {
			{absent, "absent"}, {null, "null"}, {SetValue("MED"), "=medium"}, {SetValue(" high "), "=high"},
			{SetValue(""), "invalid thinkingLevel (use off|minimal|low|medium|high)"},
			{SetValue(" "), "invalid thinkingLevel (use off|minimal|low|medium|high)"},
			{SetValue("huge"), "invalid thinkingLevel (use off|minimal|low|medium|high)"},
		},
		"verboseLevel": {
			{absent, "absent"}, {null, "null"}, {SetValue("yes"), "=on"}, {SetValue("FULL"), "=full"},
			{SetValue(""), "invalid verboseLevel (use off|on|full)"},
			{SetValue("loud"), "invalid verboseLevel (use off|on|full)"},
		},
	}
	for _, name := range PatchFields {
		for _, c := range fields[name] {
			t.Run(name+" "+state(c.in), func(t *testing.T) {
				r := PatchRequest{Key: "main"}
				*r.Field(name) = c.in
				got, err := r.Normalize()
				if err != nil {
					if domain.ErrorCode(err) != domain.CodeInvalid || domain.ErrorMessage(err) != c.want {
						t.Fatalf("Normalize: %v (code %s); want %q", err, domain.ErrorCode(err), c.want)
					}
					return
				}
				if s := state(*got.Field(name)); s != c.want {
					t.Fatalf("Normalize: %s = %s; want %s", name, s, c.want)
				}
				if got.Key != "main" {
					t.Errorf("Key = %q, want main", got.Key)
				}
				for _, other := range PatchFields {
					if other != name && got.Field(other).Given() {
						t.Errorf("%s became %s; want it absent", other, state(*got.Field(other)))
					}
				}
			})
		}
	}
	if len(fields) != len(PatchFields) {
		t.Errorf("cases for %d fields, PatchFields has %d", len(fields), len(PatchFields))
	}
}
