package engine

// PokeOutbox makes the outbox worker look for due items now: a surface
// that queued items itself (A2A push notifications) need not wait for
// the worker's next pass.
func (e *Engine) PokeOutbox() { e.deliveries.Poke() }
