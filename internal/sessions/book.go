// Package sessions is the session row's life: how a reference (a key,
// `main`, `current`, a sessionId) resolves to a canonical key, how a row
// is created, patched, reset and deleted, and the session commands a chat
// message may carry (/new, /reset, /stop, /send). The engine's gate calls
// it after it has checked the caller; it decides nothing about scopes.
package sessions

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/config"
	"github.com/switchboard-go/switchboard/internal/domain"
	"github.com/switchboard-go/switchboard/internal/query"
	"github.com/switchboard-go/switchboard/internal/sessionkey"
)

// RemoteChannel is the channel recorded on the local sessions of remote
// A2A agents.
const RemoteChannel = "a2a"

// RemoteRunTimeout bounds a run of a remote agent's local session (the
// longest a sessions_send may wait): a remote that never answers does
// not hold a lane forever.
func RemoteRunTimeout() time.Duration { return time.Duration(api.SendTimeout.Max) * time.Second }

// Models is what the book needs of the model registry.
type Models interface {
	Resolve(ref string) (domain.Provider, string, error)
	// ValidateThinking errors when the model does not accept the level.
	ValidateThinking(ref, level string) error
}

// Mirror is what the book does to a session's JSONL transcript mirror.
type Mirror interface {
	Path(agentID, sessionID string) string
	Remove(agentID, sessionID string) error
	Archive(agentID, sessionID string, ts time.Time) error
}

// Options are a Book's dependencies. Store, Keys, Config, Live, Models,
// Reads, Stop and Publish are required; Mirror may be nil.
type Options struct {
	Store domain.Store
	Keys  sessionkey.Resolver
	// Config is the configuration the engine was built with (the agents,
	// remotes and key layout, which change only with a restart); Live is
	// the configuration in effect.
	Config *config.Config
	Live   func() *config.Config
	Models Models
	Mirror Mirror
	// Reads decides what a caller may see (query.Guard).
	Reads query.Reader
	// Stop cancels the queued and running runs of a session, returning
	// how many.
	Stop    func(ctx context.Context, key string) (int, error)
	Publish func(domain.Event)
	Log     *slog.Logger
	Now     func() time.Time
	NewID   func() string
}

// Book holds the session rows' operations. Build it with NewBook.
type Book struct {
	store   domain.Store
	keys    sessionkey.Resolver
	base    *config.Config
	conf    func() *config.Config
	models  Models
	mirror  Mirror
	reads   query.Reader
	stop    func(ctx context.Context, key string) (int, error)
	publish func(domain.Event)
	log     *slog.Logger
	now     func() time.Time
	newID   func() string
}

// NewBook builds a Book.
func NewBook(o Options) *Book {
	return &Book{store: o.Store, keys: o.Keys, base: o.Config, conf: o.Live, models: o.Models, mirror: o.Mirror,
		reads: o.Reads, stop: o.Stop, publish: o.Publish, log: o.Log, now: o.Now, newID: o.NewID}
}

func (b *Book) nowMs() int64 { return b.now().UnixMilli() }

// operator is the operator as a caller: it sees every session, and its
// `current` is the default agent's main session.
func (b *Book) operator() query.Viewer {
	agent := b.base.DefaultAgentID()
	return query.Viewer{Operator: true, Agent: agent, Key: sessionkey.Key{AgentID: agent, Rest: b.base.MainKey()}.String()}
}

// IsRemote reports whether agent id names a remote A2A agent.
func (b *Book) IsRemote(id string) bool {
	_, ok := b.base.Remote(id)
	return ok
}

// ModelFor is the model reference runs of s use.
func (b *Book) ModelFor(s domain.Session) string {
	if s.ModelOverride != "" {
		return s.ModelOverride
	}
	return b.conf().AgentModel(s.AgentID)
}

func contains(ss []string, s string) bool { return slices.Contains(ss, s) }
