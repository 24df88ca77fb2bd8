package gateway

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
)

func TestErrorMappings(t *testing.T) {
	tests := []struct {
		err      error
		wireCode string
		status   int
		message  string
	}{
		{domain.Invalid("bad %s", "thing"), CodeInvalidRequest, 400, "bad thing"},
		{domain.Errorf(domain.CodeNotFound, "run not found: x"), CodeInvalidRequest, 404, "run not found: x"},
		{domain.Errorf(domain.CodeForbidden, "this credential acts as session x"), CodeInvalidRequest, 403, "this credential acts as session x"},
		{api.MissingScope(api.ScopeAdmin), CodeForbidden, 403, "missing scope: operator.admin"},
		{domain.Errorf(domain.CodeConflict, "busy"), CodeConflict, 409, "busy"},
		{domain.Errorf(domain.CodeUnavailable, "shutting down"), CodeUnavailable, 503, "shutting down"},
		{domain.Errorf(domain.CodeTimeout, "too slow"), CodeAgentTimeout, 504, "too slow"},
		{fmt.Errorf("wrapped: %w", domain.ErrNotFound), CodeInvalidRequest, 404, "wrapped: not found"},
		{fmt.Errorf("disk on fire"), CodeUnavailable, 500, "internal error"},
		{&payloadError{code: CodeAgentTimeout, message: "run timed out"}, CodeAgentTimeout, 500, "run timed out"},
		{context.Canceled, CodeUnavailable, 500, "request cancelled"},
	}
	for _, tt := range tests {
		we := toWireError(tt.err)
		if we.Code != tt.wireCode || we.Message != tt.message {
			t.Errorf("toWireError(%v) = %+v, want %s %q", tt.err, we, tt.wireCode, tt.message)
		}
		if _, ok := tt.err.(*payloadError); ok {
			continue
		}
		if got := httpStatus(domain.ErrorCode(tt.err)); got != tt.status {
			t.Errorf("httpStatus(%v) = %d, want %d", tt.err, got, tt.status)
		}
	}
}

func TestGrants(t *testing.T) {
	a := newAuthenticator("main", []config.TokenBinding{
		{Token: "ro", Scopes: []string{"read"}},
		{Token: "rw", Scopes: []string{"Write", "operator.read"}},
		{Token: "bound", Session: "agent:main:x"},
		{Token: ""}, // ignored: an empty token must never match
	})
	tests := []struct {
		token     string
		ok        bool
		requested []string
		want      []string
		session   string
	}{
		{"main", true, nil, allScopes(), ""},
		{"main", true, []string{ScopeRead, ScopeRead, "nonsense"}, []string{ScopeRead}, ""},
		{"ro", true, []string{ScopeAdmin}, []string{}, ""},
		{"rw", true, nil, []string{ScopeWrite, ScopeRead}, ""},
		{"bound", true, nil, boundDefaultScopes(), "agent:main:x"},
		{"", false, nil, nil, ""},
		{"mai", false, nil, nil, ""},
	}
	for _, tt := range tests {
		g, ok := a.check(tt.token)
		if ok != tt.ok {
			t.Errorf("check(%q) ok = %v", tt.token, ok)
			continue
		}
		if !ok {
			continue
		}
		if got := g.narrow(tt.requested).scopes; !slices.Equal(got, tt.want) || g.session != tt.session {
			t.Errorf("token %q requesting %v: scopes %v session %q, want %v %q", tt.token, tt.requested, got, g.session, tt.want, tt.session)
		}
	}
	if g, ok := (authenticator{}).check(""); !ok || !g.has(ScopeAdmin) {
		t.Error("no configured token should grant everything")
	}
	for _, tt := range []struct {
		have []string
		need string
		ok   bool
	}{
		{[]string{ScopeWrite}, ScopeRead, true},
		{[]string{ScopeAdmin}, ScopeWrite, true},
		{[]string{ScopeRead}, ScopeWrite, false},
		{[]string{ScopeWrite}, ScopeAdmin, false},
		{nil, ScopeRead, false},
	} {
		if got := scopeSatisfied(tt.have, tt.need); got != tt.ok {
			t.Errorf("scopeSatisfied(%v, %s) = %v", tt.have, tt.need, got)
		}
	}
}

// TestIDKnown: a request id is a non-empty JSON string, escaped or not.
func TestIDKnown(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{`"a"`, true}, {`"1:agent"`, true}, {`" "`, true}, {`"a\"b"`, true}, {`"\u0041"`, true}, {`"\\"`, true},
		{`""`, false}, {``, false}, {`1`, false}, {`null`, false}, {`{"a":1}`, false}, {`["a"]`, false}, {`"`, false},
	}
	for _, tc := range tests {
		if got := idKnown([]byte(tc.id)); got != tc.want {
			t.Errorf("idKnown(%s) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
