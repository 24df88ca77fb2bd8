package script

import (
	"context"

	"github.com/switchboard-go/switchboard/internal/domain"
)

// DefaultChunkChars is the piece size of a rule that sets only chunkMs.
const DefaultChunkChars = 8

// stream hands the answer block to onDelta in pieces of r.chunk
// characters (runes), r.chunkGap apart, the first at once: the same
// pieces at the same pace on every run. A tool call streams its id and
// name first, then its arguments' JSON in pieces. A cancelled call
// stops between pieces with ctx's error.
func (r *rule) stream(ctx context.Context, b domain.Block, onDelta domain.DeltaFunc) error {
	var pieces []domain.ModelDelta
	switch b.Type {
	case domain.BlockText:
		for _, p := range split(b.Text, r.chunk) {
			pieces = append(pieces, domain.ModelDelta{Text: p})
		}
	case domain.BlockToolCall:
		pieces = append(pieces, domain.ModelDelta{ToolCall: &domain.ToolCallDelta{ID: b.ID, Name: b.Name}})
		for _, p := range split(string(b.Arguments), r.chunk) {
			pieces = append(pieces, domain.ModelDelta{ToolCall: &domain.ToolCallDelta{Arguments: p}})
		}
	}
	for i, d := range pieces {
		if i > 0 && r.chunkGap > 0 {
			if err := wait(ctx, r.chunkGap); err != nil {
				return err
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		onDelta(d)
	}
	return nil
}

// split cuts s into pieces of n runes (the last may be shorter).
func split(s string, n int) []string {
	var out []string
	count, start := 0, 0
	for i := range s {
		if count == n {
			out = append(out, s[start:i])
			count, start = 0, i
		}
		count++
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
