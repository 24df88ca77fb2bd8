package gateway

import (
	"slices"
	"strings"
	"sync"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// runAliases names the runs chat.send started with an idempotencyKey by
// that key, as OpenClaw does: its chat.send answers runId = idempotencyKey
// and every agent and chat event of the run carries that id, and its
// Control UI matches the events of the run it started by the key it
// generated. Without it the UI took the run's final chat event for
// another run's message and showed the reply twice.
//
// The run keeps its own id in the store, in runs.list and wherever else
// the gateway is not the one to answer; agent.wait and chat.abort take
// either id. The names are this process's: another replica's events of
// the same run carry the run's own id.
type runAliases struct {
	mu    sync.Mutex
	byRun map[string]string // run id → key
	byKey map[string]string // key → run id
	order []string          // run ids, oldest first
	// expected are the chat.send calls under way: the run one starts may
	// send its first events before the call learns the run's id, so the
	// fan-out names a starting run whose message one of them sent.
	expected []expectedRun
}

// expectedRun is a chat.send under way: its message and key.
type expectedRun struct {
	message, key string
}

// maxRunAliases bounds the names kept; the oldest go first. A run's name
// outlives the run, so agent.wait on a just-ended run still finds it.
const maxRunAliases = 4096

func newRunAliases() *runAliases {
	return &runAliases{byRun: map[string]string{}, byKey: map[string]string{}}
}

// add names run runID by key and reports whether the run has that name.
// A key already naming another run (the same key from another principal
// is another run in switchboard, not in OpenClaw) leaves the run its own
// id.
func (a *runAliases) add(runID, key string) bool {
	if runID == "" || key == "" || runID == key {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if k, ok := a.byRun[runID]; ok {
		return k == key
	}
	if r, ok := a.byKey[key]; ok && r != runID {
		return false
	}
	if len(a.order) >= maxRunAliases {
		old := a.order[0]
		a.order = a.order[1:]
		if k := a.byRun[old]; a.byKey[k] == old {
			delete(a.byKey, k)
		}
		delete(a.byRun, old)
	}
	a.byRun[runID] = key
	a.byKey[key] = runID
	a.order = append(a.order, runID)
	return true
}

// expect records a chat.send of message with key under way, until the
// returned func is called (when the call has the run's id).
func (a *runAliases) expect(message, key string) (done func()) {
	if key == "" {
		return func() {}
	}
	e := expectedRun{message: strings.TrimSpace(message), key: key}
	a.mu.Lock()
	a.expected = append(a.expected, e)
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if i := slices.Index(a.expected, e); i >= 0 {
			a.expected = slices.Delete(a.expected, i, i+1)
		}
	}
}

// started names run r by the key of a chat.send of its message under
// way, if there is one and the run has no name yet. Only a chat run can
// be that call's: an `agent` call with the same key and text answers
// with its run's own id, and its run's start may reach the fan-out after
// the chat.send began. Two calls sending the same text at once may see
// each other's runs named so until the calls return; each call's answer
// then names its own run (add).
func (a *runAliases) started(r domain.Run) {
	if r.Kind != domain.RunKindChat {
		return
	}
	message := strings.TrimSpace(r.Message)
	a.mu.Lock()
	_, named := a.byRun[r.ID]
	i := slices.IndexFunc(a.expected, func(e expectedRun) bool { return e.message == message })
	var key string
	if !named && i >= 0 {
		key = a.expected[i].key
		a.expected = slices.Delete(a.expected, i, i+1)
	}
	a.mu.Unlock()
	if key != "" {
		a.add(r.ID, key)
	}
}

// public returns the id events of runID carry: its key when it has one,
// else "".
func (a *runAliases) public(runID string) string {
	if runID == "" {
		return ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.byRun[runID]
}

// name returns the id runID goes by: its key, else itself.
func (a *runAliases) name(runID string) string {
	if k := a.public(runID); k != "" {
		return k
	}
	return runID
}

// run returns the run id that id names: the run of that key, else id.
func (a *runAliases) run(id string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if r, ok := a.byKey[id]; ok {
		return r
	}
	return id
}

// renamedRun returns ev with every run id in it replaced by id; the
// structs it points to are shared with other subscribers, so the changed
// ones are copies.
func renamedRun(ev domain.Event, id string) domain.Event {
	if ev.Run != nil {
		r := *ev.Run
		r.ID = id
		ev.Run = &r
	}
	if ev.Delta != nil {
		d := *ev.Delta
		d.RunID = id
		ev.Delta = &d
	}
	if ev.Message != nil && ev.Message.RunID != "" {
		m := *ev.Message
		m.RunID = id
		ev.Message = &m
	}
	if ev.Progress != nil {
		p := *ev.Progress
		p.RunID = id
		ev.Progress = &p
	}
	return ev
}
