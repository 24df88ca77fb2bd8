package api

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/textcheck"
)

// ThinkingLevels are the session thinking levels sessions.patch takes
// (after NormalizeThinking).
var ThinkingLevels = []string{"off", "minimal", "low", "medium", "high"}

// Normalize checks a patch's values and returns them as they are stored:
// the one place every surface's sessions.patch goes through (the engine
// calls it; WS, HTTP, the Go client and the CLI only carry the three
// states). Absent stays absent and null stays null (clear: the session
// inherits again); a value must be valid for its field, "" and blanks
// included — they are refused naming the field, as OpenClaw's
// sessions.patch does, never read as "clear":
//
//   - label: trimmed; `invalid label: empty`, then CheckLabel's rules;
//   - sendPolicy: allow or deny in any case; else `invalid sendPolicy (use
//     "allow"|"deny")` ("inherit" too: on the wire it is null);
//   - model: trimmed; `invalid model: empty` (whether the model exists is
//     the engine's to say, from its registry);
//   - thinkingLevel, verboseLevel: NormalizeThinking / NormalizeVerbose,
//     then `invalid thinkingLevel (use off|minimal|…)` for another value.
//
// Key is kept as it is.
func (r PatchRequest) Normalize() (PatchRequest, error) {
	out := PatchRequest{Key: r.Key}
	for _, f := range []struct {
		in, out *Nullable
		parse   func(string) (string, error)
	}{
		{&r.Label, &out.Label, ParseLabel},
		{&r.SendPolicy, &out.SendPolicy, parseSendPolicy},
		{&r.Model, &out.Model, parseModelRef},
		{&r.ThinkingLevel, &out.ThinkingLevel, enumParser("thinkingLevel", NormalizeThinking, ThinkingLevels)},
		{&r.VerboseLevel, &out.VerboseLevel, enumParser("verboseLevel", NormalizeVerbose, VerboseLevels)},
	} {
		v, ok := f.in.Value()
		if !ok {
			*f.out = *f.in // absent or null, as given
			continue
		}
		v, err := f.parse(v)
		if err != nil {
			return PatchRequest{}, err
		}
		*f.out = SetValue(v)
	}
	return out, nil
}

// ParseLabel is a label given as a value, trimmed, as OpenClaw's
// parseSessionLabel reads it: blank is `invalid label: empty` (clearing a
// label is null, never ""), then CheckLabel's rules.
func ParseLabel(raw string) (string, error) {
	label := strings.TrimSpace(raw)
	if label == "" {
		return "", domain.Invalid("invalid label: empty")
	}
	if err := CheckLabel(label); err != nil {
		return "", err
	}
	return label, nil
}

// CheckLabel refuses a label (patch, chat, spawn, a send's or resolve's
// label lookup) that is too long or, once trimmed, holds a control or
// bidirectional-formatting character: textcheck's rule, the one attachment
// names follow too. Its errors name the label field.
func CheckLabel(label string) error {
	if int64(len([]rune(label))) > LabelChars.Max {
		return domain.Invalid("invalid label: too long (max %d)", LabelChars.Max)
	}
	return textcheck.Check("label", strings.TrimSpace(label))
}

// parseSendPolicy takes OpenClaw's sendPolicy values: allow or deny.
func parseSendPolicy(v string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(v)); v {
	case domain.SendPolicyAllow, domain.SendPolicyDeny:
		return v, nil
	}
	return "", domain.Invalid(`invalid sendPolicy (use "allow"|"deny")`)
}

// parseModelRef trims a model reference and refuses a blank one.
func parseModelRef(v string) (string, error) {
	if v = strings.TrimSpace(v); v == "" {
		return "", domain.Invalid("invalid model: empty")
	}
	return v, nil
}

// enumParser normalizes a level and refuses one that is not in levels,
// naming field and the levels.
func enumParser(field string, normalize func(string) string, levels []string) func(string) (string, error) {
	return func(v string) (string, error) {
		v = normalize(v)
		for _, l := range levels {
			if v == l {
				return v, nil
			}
		}
		return "", domain.Invalid("invalid %s (use %s)", field, strings.Join(levels, "|"))
	}
}
