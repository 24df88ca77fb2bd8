package conformance

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
)

// row is one operation for one principal, tried on every surface.
type row struct {
	// finding is the issue-10 finding the row checks ("1" … "11").
	finding string
	name    string
	// want is the one answer every cell must give.
	want outcome
	// fields extracts the row's fields of interest from a cell's payload
	// (nil: none). It sees the payload of refusals too.
	fields func(payload []byte) map[string]string
	// sameFields lists fields (and "Msg") that must be identical on every
	// cell that answered, beyond matching want.
	sameFields []string
	// exactCode asks every cell for the row's code itself: a coarse code
	// (a WS INVALID_REQUEST, a tool "error", a CLI exit status) that
	// would cover it is not enough.
	exactCode bool
	cells     []cell
}

// cell is one surface's way to make the row's call.
type cell struct {
	s   surface
	via string // how: a method, path or command
	// skip, when set, says why the surface does not carry this cell.
	skip string
	// msg, when set, is the message this cell answers instead of the
	// row's: a WS refusal in OpenClaw's words (its schema checks the
	// params before switchboard reads them, docs/gateway.md).
	msg string
	run func(t *testing.T, w *world) outcome
}

// openclawWords is c answering msg, OpenClaw's words for the refusal.
func openclawWords(c cell, msg string) cell {
	c.msg = msg
	return c
}

// na is a cell a surface does not have, with the reason.
func na(s surface, why string) cell { return cell{s: s, skip: why} }

// Reasons shared by many rows.
const (
	cliIsOperator  = "the CLI acts as the operator (or --as); token principals exist on HTTP, WS and MCP over HTTP only"
	stdioIsOwner   = "MCP over stdio acts with the state dir's own credentials; token principals exist on HTTP, WS and MCP over HTTP only"
	noCLIToolCall  = "no CLI command calls a tool by name"
	noMCPNative    = "MCP carries the session tools only"
	noCLIIdemKey   = "the CLI has no idempotency-key flag"
	stdioOnePerson = "one MCP stdio process is one principal (the state dir's operator acting as --session)"
)

func TestConformance(t *testing.T) {
	w := newWorld(t)
	w.seed(t)
	var rows []row
	for _, group := range [][]row{
		subscribeRows(w),
		scopeRows(w), boundRows(w), idempotencyRows(w), idempotencyLimitRows(w), limitRows(w), requesterRows(w),
		cancelRows(w), resolutionRows(w), readRows(w), refusalRows(w), keyRows(w), a2aRows(w),
		resolveRows(w), getSessionRows(w), deliverRows(w), outboxRows(w), subagentsRows(w), waitRows(w),
		patchResetRows(w), writeQueueRows(w), labelRows(w),
		agentsRows(w), defaultsRows(w), runsReadRows(w), deleteRows(w), a2aServerRows(w), remoteRows(w),
		yieldStatusContextModeRows(w),
		searchRows(w), pagingRows(w),
		budgetRows(w),
		chatDeliverRows(w), chatFileRows(w),
		loopsRows(w), auditRows(w),
		approvalsRows(w),
		patchLabelRows(w), deliverRecipientRows(w), patchSettingRows(w), patchEmptyFlagRows(w),
		paramsRows(w),
		nulTextRows(w), listSearchRows(w),
		batchRows(w),
		sandboxBudgetRows(w),
		channelRows(w),
		a2aOwnerRows(w),
		revokeRows(w),
		resourceRows(w),
		codeRows(w),
	} {
		rows = append(rows, group...)
	}
	// The rows run in parallel inside one group, so the sweep below sees
	// every frame they exchanged.
	t.Run("rows", func(t *testing.T) {
		for _, r := range rows {
			t.Run(fmt.Sprintf("F%s/%s", r.finding, r.name), func(t *testing.T) {
				t.Parallel()
				runRow(t, w, r)
			})
		}
	})
	t.Run("openclaw-wire", func(t *testing.T) { checkOpenClawWire(t, w) })
}

// runRow runs every cell of a row and compares each with the row's want,
// then the sameFields across the cells.
func runRow(t *testing.T, w *world, r row) {
	var mu sync.Mutex
	got := map[string]outcome{}
	for _, c := range r.cells {
		name := string(c.s)
		if c.via != "" {
			name += " " + c.via
		}
		t.Run(name, func(t *testing.T) {
			if c.skip != "" {
				t.Skip(c.skip)
			}
			o := c.run(t, w)
			if r.fields != nil {
				o.Fields = r.fields([]byte(o.Payload))
			}
			mu.Lock()
			got[name] = o
			mu.Unlock()
			want := r.want
			if c.msg != "" {
				want.Msg = c.msg
			}
			if d := diff(want, o); d != "" {
				t.Errorf("%s %s", name, d)
			}
			if r.exactCode && o.Code != want.Code {
				t.Errorf("%s: code %q, want exactly %q (payload: %s)", name, o.Code, want.Code, clipText(o.Payload, 600))
			}
		})
	}
	for _, f := range r.sameFields {
		seen := map[string][]string{}
		for name, o := range got {
			v := o.Fields[f]
			if f == "Msg" {
				v = o.Msg
			}
			seen[v] = append(seen[v], name)
		}
		if len(seen) > 1 {
			var lines []string
			for v, names := range seen {
				sort.Strings(names)
				lines = append(lines, fmt.Sprintf("  %q on %s", v, strings.Join(names, ", ")))
			}
			sort.Strings(lines)
			t.Errorf("%s differs across surfaces:\n%s", f, strings.Join(lines, "\n"))
		}
	}
}

// jsonPath returns the value at a dotted path of a JSON document as a
// string ("" when absent; objects and arrays as JSON).
func jsonPath(b []byte, path string) string {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return ""
	}
	for _, p := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool, float64:
		return fmt.Sprint(x)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// firstOf returns the first non-empty value of the paths.
func firstOf(b []byte, paths ...string) string {
	for _, p := range paths {
		if v := jsonPath(b, p); v != "" {
			return v
		}
	}
	return ""
}

// has reports whether payload contains s, as "true"/"false".
func has(payload []byte, s string) string { return fmt.Sprint(strings.Contains(string(payload), s)) }
