package engine

import (
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// patchSet is what a sessions.patch stores: nil leaves a setting as it is,
// "" clears it (the request's null).
type patchSet struct {
	label, sendPolicy, model, thinking, verbose *string
}

// patchSettings checks a patch's values, as OpenClaw's sessions.patch does:
// null clears a setting, and a value, "" and blanks included, must be
// valid for its field — "" never means "clear", so a client that sends ""
// by mistake is told so instead of silently resetting the setting.
func (e *Engine) patchSettings(p api.PatchRequest) (patchSet, error) {
	var set patchSet
	var err error
	if set.label, err = patchValue(p.Label, parseLabel); err != nil {
		return set, err
	}
	if set.sendPolicy, err = patchValue(p.SendPolicy, func(v string) (string, error) {
		switch v := strings.ToLower(strings.TrimSpace(v)); v {
		case domain.SendPolicyAllow, domain.SendPolicyDeny:
			return v, nil
		}
		return "", domain.Invalid(`invalid sendPolicy (use "allow"|"deny")`)
	}); err != nil {
		return set, err
	}
	if set.model, err = patchValue(p.Model, func(v string) (string, error) {
		v = strings.TrimSpace(v)
		if v == "" {
			return "", domain.Invalid("invalid model: empty")
		}
		if _, _, err := e.models.Resolve(v); err != nil {
			return "", err
		}
		return v, nil
	}); err != nil {
		return set, err
	}
	if set.thinking, err = patchValue(p.ThinkingLevel, func(v string) (string, error) {
		v = api.NormalizeThinking(v)
		if !contains([]string{"off", "minimal", "low", "medium", "high"}, v) {
			return "", domain.Invalid("invalid thinkingLevel (use off|minimal|low|medium|high)")
		}
		return v, nil
	}); err != nil {
		return set, err
	}
	set.verbose, err = patchValue(p.VerboseLevel, func(v string) (string, error) {
		v = api.NormalizeVerbose(v)
		if !contains(api.VerboseLevels, v) {
			return "", domain.Invalid("invalid verboseLevel (use %s)", strings.Join(api.VerboseLevels, "|"))
		}
		return v, nil
	})
	return set, err
}

// patchValue is the setting to store for n: nil when absent, "" when null,
// else parse(value).
func patchValue(n api.Nullable, parse func(string) (string, error)) (*string, error) {
	if !n.Given() {
		return nil, nil
	}
	v, ok := n.Value()
	if !ok {
		return new(string), nil
	}
	v, err := parse(v)
	if err != nil {
		return nil, err
	}
	return &v, nil
}
