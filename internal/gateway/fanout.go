package gateway

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// eventSessionKey is the session an engine event is about.
func eventSessionKey(ev domain.Event) string {
	if ev.Run != nil && ev.Run.SessionKey != "" {
		return ev.Run.SessionKey
	}
	return ev.SessionKey
}

// eventRunID is the run an engine event belongs to, if any.
func eventRunID(ev domain.Event) string {
	switch {
	case ev.Run != nil:
		return ev.Run.ID
	case ev.Delta != nil:
		return ev.Delta.RunID
	case ev.Message != nil:
		return ev.Message.RunID
	}
	return ""
}

// wireEvent is a protocol event whose payload is already JSON, so an event
// that goes to many connections is mapped and encoded once.
type wireEvent struct {
	name    []byte // the JSON string of the event name
	payload json.RawMessage
	// sessionKey is the session the event is about (routing, and the
	// visibility filter of non-operators); runID the run it belongs to.
	sessionKey string
	runID      string
	// changed marks a sessions.changed event (sessions.subscribe routes
	// it; visibility is checked again after it).
	changed bool
	// subscribedOnly marks an event only explicit subscribers of its
	// session get (session.message), never the broadcast.
	subscribedOnly bool
	// delta marks a streamed piece (never kept in the backlog).
	delta bool
	// ended marks the last event of a run (its chat end): the run's
	// starter stops receiving its events after it.
	ended bool
}

// appendFrame appends the event frame with a connection's seq to b.
func (w wireEvent) appendFrame(b []byte, seq int64) []byte {
	b = append(b, `{"type":"event","event":`...)
	b = append(b, w.name...)
	b = append(b, `,"payload":`...)
	b = append(b, w.payload...)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, seq, 10)
	return append(b, '}')
}

// run maps and encodes engine events until ctx ends. The Server owns it
// (started in Serve, stopped with the background goroutines).
func (f *fanout) run(ctx context.Context, s *Server) {
	events, stop := s.eng.Subscribe(fanoutBuffer)
	defer stop()
	// names holds the JSON of each event name seen (a handful), encoded once.
	names := map[string][]byte{}
	seqs := runSeqs{}
	finals := runFinals{}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			s.models.observe(ev)
			key, runID := eventSessionKey(ev), eventRunID(ev)
			if ev.Kind == domain.EventRunStart && ev.Run != nil {
				s.aliases.started(*ev.Run)
			}
			mapped := ev
			finals.observe(ev)
			if ev.Kind == domain.EventRunEnd && ev.Run != nil {
				mapped.Message = finals.take(*ev.Run)
			}
			if id := runID; id != "" || ev.Progress != nil {
				if id == "" {
					id = ev.Progress.RunID
				}
				if pub := s.aliases.public(id); pub != "" {
					mapped = renamedRun(mapped, pub)
				}
			}
			for _, out := range s.mapEvent(mapped) {
				payload, err := json.Marshal(out.payload)
				if err != nil {
					s.log.Warn("gateway: event does not encode", "event", out.name, "err", err)
					continue
				}
				if out.name == "agent" || out.name == chatName {
					id := runID
					if id == "" && ev.Progress != nil {
						id = ev.Progress.RunID
					}
					payload = seqs.stamp(id, payload)
				}
				name, ok := names[out.name]
				if !ok {
					name, _ = json.Marshal(out.name)
					names[out.name] = name
				}
				f.publish(wireEvent{name: name, payload: payload, sessionKey: key, runID: runID,
					changed:        ev.Kind == domain.EventSession,
					subscribedOnly: out.name == sessionMessageName,
					ended:          ev.Kind == domain.EventRunEnd && out.name == chatName,
					delta:          ev.Kind == domain.EventDelta})
			}
			if ev.Kind == domain.EventRunEnd {
				delete(seqs, runID)
			}
		}
	}
}

// runSeqs numbers the `agent` and `chat` events of each run (OpenClaw's
// payload `seq`: 1, 2, … per run, across streams), so a client can order
// a run's events and see a gap; the frame's own `seq` counts per
// connection. A run's counter goes when its end is mapped.
type runSeqs map[string]int64

// maxRunSeqs bounds the counters of runs whose end never reaches this
// gateway (another replica ran them): past it, every counter restarts.
const maxRunSeqs = 100_000

// stamp puts the run's next seq first in payload, a JSON object.
func (r runSeqs) stamp(runID string, payload []byte) []byte {
	if runID == "" || len(payload) < 2 || payload[0] != '{' {
		return payload
	}
	if len(r) >= maxRunSeqs {
		clear(r)
	}
	r[runID]++
	out := make([]byte, 0, len(payload)+24)
	out = append(out, `{"seq":`...)
	out = strconv.AppendInt(out, r[runID], 10)
	if payload[1] != '}' {
		out = append(out, ',')
	}
	return append(out, payload[1:]...)
}
