package model

import (
	"context"
	"fmt"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// missingKey stands in for a built-in provider that would call its public
// endpoint (no baseUrl) without an API key. The call could only fail, and
// far from the cause (a DNS or 401 error); this says which key is missing.
// A provider with a baseUrl (a local server such as Ollama) is never
// wrapped: those commonly need no key.
type missingKey struct {
	domain.Provider
	keyEnv string
}

// Complete refuses the call before any request goes out.
func (m missingKey) Complete(context.Context, domain.ModelRequest) (domain.ModelResponse, error) {
	name := m.Name()
	return domain.ModelResponse{}, &domain.Error{Code: domain.CodeInvalid,
		Message: fmt.Sprintf("%s: no API key (set %s or models.providers.%s.apiKey)", name, m.keyEnv, name)}
}
