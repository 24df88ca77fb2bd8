package query

import (
	"slices"
	"strings"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/domain"
)

var validKinds = []string{domain.KindMain, domain.KindGroup, domain.KindCron, domain.KindHook, domain.KindNode, domain.KindOther}

// NormalizeKinds checks a kinds filter: at most api.ListKinds.Max known
// kinds, case-insensitive. It returns them lowercased.
func NormalizeKinds(kinds []string) ([]string, error) {
	if int64(len(kinds)) > api.ListKinds.Max {
		return nil, domain.Invalid("kinds has too many items (%d; max %d)", len(kinds), api.ListKinds.Max)
	}
	var out []string
	for _, k := range kinds {
		k = strings.ToLower(strings.TrimSpace(k))
		if !slices.Contains(validKinds, k) {
			return nil, domain.Invalid("kinds: unknown kind %q (use %s)", k, strings.Join(validKinds, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}
