// Package loopguard is the loop breaker on the message graph: the
// sessions are its nodes, an agent-to-agent message from one session to
// another is a traversal of the edge between them. More than Max
// messages on one edge, or around one cycle of edges, within Window
// pauses the edge: its messages are held (by the caller, durably) until
// an operator resumes it.
package loopguard

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Edge is one direction of the message graph: From sends to To.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func (e Edge) String() string { return e.From + " → " + e.To }

// Pause is a paused edge and why.
type Pause struct {
	Edge
	// Reason names the limit that tripped: the edge's count or a cycle's.
	Reason string `json:"reason"`
	// Since is when the edge was paused (Unix ms).
	Since int64 `json:"since"`
}

// Limits are the breaker's bounds; Max 0 turns it off.
type Limits struct {
	Max    int
	Window time.Duration
}

// Breaker counts messages per edge and per cycle. Safe for concurrent use.
type Breaker struct {
	now func() time.Time

	mu     sync.Mutex
	lim    Limits
	edges  map[Edge][]time.Time
	cycles map[string][]time.Time
	paused map[Edge]Pause
}

// New returns a Breaker with lim; now is its clock (nil: time.Now).
func New(lim Limits, now func() time.Time) *Breaker {
	if now == nil {
		now = time.Now
	}
	return &Breaker{now: now, lim: lim, edges: map[Edge][]time.Time{}, cycles: map[string][]time.Time{}, paused: map[Edge]Pause{}}
}

// On reports whether the breaker counts at all.
func (b *Breaker) On() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lim.Max > 0
}

// Note records one message on e. chain lists the sessions the message
// passed through before e.From (oldest first); when e.To is among them
// (or is e.From) the message closes a cycle, which is counted too. It
// returns the pause when this message is over a limit, or when e is
// already paused; the caller then holds the message instead of sending it.
func (b *Breaker) Note(e Edge, chain []string) (Pause, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.paused[e]; ok {
		return p, true
	}
	if b.lim.Max <= 0 {
		return Pause{}, false
	}
	now := b.now()
	if n := count(b, b.edges, e, now); n > b.lim.Max {
		return b.pause(e, fmt.Sprintf("%d agent-to-agent messages on %s within %s (session.agentToAgent.loopBreaker.maxMessages %d)",
			n, e, b.lim.Window, b.lim.Max), now), true
	}
	if c := cycleOf(e, chain); c != "" {
		if n := count(b, b.cycles, c, now); n > b.lim.Max {
			return b.pause(e, fmt.Sprintf("%d agent-to-agent messages around the cycle %s within %s (session.agentToAgent.loopBreaker.maxMessages %d)",
				n, c, b.lim.Window, b.lim.Max), now), true
		}
	}
	return Pause{}, false
}

// count adds one message at now to m[k], drops those outside the window
// and returns how many are left.
func count[K comparable](b *Breaker, m map[K][]time.Time, k K, now time.Time) int {
	ts := append(m[k], now)
	cut := 0
	for cut < len(ts) && now.Sub(ts[cut]) >= b.lim.Window {
		cut++
	}
	ts = ts[cut:]
	m[k] = ts
	return len(ts)
}

func (b *Breaker) pause(e Edge, reason string, now time.Time) Pause {
	p := Pause{Edge: e, Reason: reason, Since: now.UnixMilli()}
	b.paused[e] = p
	return p
}

// Paused reports e's pause, if it is paused.
func (b *Breaker) Paused(e Edge) (Pause, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p, ok := b.paused[e]
	return p, ok
}

// Restore marks e paused (a restart found its held messages).
func (b *Breaker) Restore(p Pause) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.paused[p.Edge]; !ok {
		b.paused[p.Edge] = p
	}
}

// Resume lifts e's pause and forgets its count (and the counts of the
// cycles through it), so the held messages and the next ones pass. It
// reports whether e was paused.
func (b *Breaker) Resume(e Edge) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.paused[e]
	delete(b.paused, e)
	delete(b.edges, e)
	for c := range b.cycles {
		if strings.Contains(" → "+c+" → ", " → "+e.From+" → "+e.To+" → ") {
			delete(b.cycles, c)
		}
	}
	return ok
}

// List returns the paused edges, oldest pause first.
func (b *Breaker) List() []Pause {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Pause, 0, len(b.paused))
	for _, p := range b.paused {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Pause) int {
		if a.Since != b.Since {
			return int(a.Since - b.Since)
		}
		return strings.Compare(a.Edge.String(), b.Edge.String())
	})
	return out
}

// SetLimits replaces the limits (a reload); counts and pauses stay.
func (b *Breaker) SetLimits(lim Limits) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lim = lim
}

// cycleOf names the cycle e closes given the chain before e.From, ""
// when it closes none: the sessions of the cycle from its smallest one
// on, so every rotation of a cycle is the same name.
func cycleOf(e Edge, chain []string) string {
	path := append(slices.Clone(chain), e.From)
	i := slices.Index(path, e.To)
	if i < 0 {
		return ""
	}
	ring := path[i:]
	start := 0
	for j, s := range ring {
		if s < ring[start] {
			start = j
		}
	}
	rot := append(slices.Clone(ring[start:]), ring[:start]...)
	return strings.Join(append(rot, rot[0]), " → ")
}
