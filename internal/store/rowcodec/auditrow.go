package rowcodec

import "github.com/switchboard-go/switchboard/internal/audit"

// AuditColumns are the audit_log table's columns, in the order of
// AuditValues and AuditRow.Dest.
const AuditColumns = `seq, at, kind, actor, surface, op, session_key, target, run_id, agent_id, tool_call_id, outcome, detail, prev, hash`

// AuditColumnCount is the number of AuditColumns.
const AuditColumnCount = 15

// AuditHeadColumns are the audit_head row's columns that AuditHeadDest
// reads: the chain's head, then its anchor.
const AuditHeadColumns = `head_seq, head_hash, anchor_seq, anchor_hash`

// AuditValues are r's column values in AuditColumns order.
func AuditValues(r audit.Record) []any {
	return []any{r.Seq, r.At, string(r.Kind), r.Actor, r.Surface, r.Op, r.Session, r.Target, r.RunID,
		r.AgentID, r.ToolCallID, r.Outcome, r.Detail, r.Prev, r.Hash}
}

// AuditRow is one audit_log row being read: scan the columns into Dest,
// then take Record.
type AuditRow struct {
	r    audit.Record
	kind string
}

// Dest are the scan destinations of AuditColumns, in order.
func (a *AuditRow) Dest() []any {
	r := &a.r
	return []any{&r.Seq, &r.At, &a.kind, &r.Actor, &r.Surface, &r.Op, &r.Session, &r.Target, &r.RunID,
		&r.AgentID, &r.ToolCallID, &r.Outcome, &r.Detail, &r.Prev, &r.Hash}
}

// Record is the record the scanned row holds.
func (a *AuditRow) Record() audit.Record {
	r := a.r
	r.Kind = audit.Kind(a.kind)
	return r
}

// AuditHeadDest are the scan destinations of AuditHeadColumns into st.
func AuditHeadDest(st *audit.State) []any {
	return []any{&st.Head.Seq, &st.Head.Hash, &st.Anchor.Seq, &st.Anchor.Hash}
}
