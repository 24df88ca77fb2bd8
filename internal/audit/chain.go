package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// sealVersion opens every hashed encoding, so a later encoding can be told
// apart.
const sealVersion = "switchboard-audit-v1"

// Seal returns the hash of the record at seq holding e after a record
// whose hash is prev: the hex SHA-256 of sealVersion, seq and at as 8-byte
// big-endian integers, then prev and each text field of e (kind, actor,
// surface, op, session, target, runId, agentId, toolCallId, outcome,
// detail) as a 4-byte big-endian length and its bytes. Any change to a
// field, the position or the record before changes it.
func Seal(prev string, seq int64, e Entry) string {
	h := sha256.New()
	var n [8]byte
	h.Write([]byte(sealVersion))
	binary.BigEndian.PutUint64(n[:], uint64(seq))
	h.Write(n[:])
	binary.BigEndian.PutUint64(n[:], uint64(e.At))
	h.Write(n[:])
	for _, f := range []string{prev, string(e.Kind), e.Actor, e.Surface, e.Op, e.Session, e.Target,
		e.RunID, e.AgentID, e.ToolCallID, e.Outcome, e.Detail} {
		binary.BigEndian.PutUint32(n[:4], uint32(len(f)))
		h.Write(n[:4])
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Next is the record that follows head (the chain's last record, or its
// anchor) holding e.
func Next(head Anchor, e Entry) Record {
	seq := head.Seq + 1
	return Record{Seq: seq, Entry: e, Prev: head.Hash, Hash: Seal(head.Hash, seq, e)}
}

// Anchor is a position of the chain and the hash of the record there:
// where the kept records start after a prune (the last pruned record), or
// where they end (the head).
type Anchor struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

// Break is the first position where the chain does not hold.
type Break struct {
	// Seq is the position: the record that was edited, or the first one
	// missing.
	Seq int64 `json:"seq"`
	// Reason says what is wrong there.
	Reason string `json:"reason"`
}

func (b *Break) Error() string {
	return fmt.Sprintf("audit chain broken at record %d: %s", b.Seq, b.Reason)
}

// Verifier checks a chain record by record, from its anchor, so a chain
// of any length is verified page by page.
type Verifier struct {
	at    Anchor
	count int64
	err   *Break
}

// NewVerifier starts at anchor (zero: the chain's very beginning).
func NewVerifier(anchor Anchor) *Verifier { return &Verifier{at: anchor} }

// Add checks the next record; it returns the first break found (and keeps
// returning it).
func (v *Verifier) Add(r Record) *Break {
	if v.err != nil {
		return v.err
	}
	want := v.at.Seq + 1
	switch {
	case r.Seq > want:
		v.err = &Break{Seq: want, Reason: fmt.Sprintf("record missing (deleted): the next record kept is %d", r.Seq)}
	case r.Seq < want:
		v.err = &Break{Seq: r.Seq, Reason: fmt.Sprintf("record out of order (expected %d)", want)}
	case r.Prev != v.at.Hash:
		v.err = &Break{Seq: r.Seq, Reason: "its link to the record before does not match (the record before was edited or replaced)"}
	case Seal(r.Prev, r.Seq, r.Entry) != r.Hash:
		v.err = &Break{Seq: r.Seq, Reason: "its contents do not match its hash (edited)"}
	default:
		v.at = Anchor{Seq: r.Seq, Hash: r.Hash}
		v.count++
	}
	return v.err
}

// End checks that the chain ends at head (the store's record of its last
// append): a deleted tail shows here.
func (v *Verifier) End(head Anchor) *Break {
	if v.err != nil {
		return v.err
	}
	switch {
	case head.Seq > v.at.Seq:
		v.err = &Break{Seq: v.at.Seq + 1, Reason: fmt.Sprintf("record missing (deleted): the chain's head is %d", head.Seq)}
	case head.Seq < v.at.Seq || head.Hash != v.at.Hash:
		v.err = &Break{Seq: v.at.Seq, Reason: "the chain's head does not match its last record"}
	}
	return v.err
}

// Checked is the number of records that verified.
func (v *Verifier) Checked() int64 { return v.count }

// Verify checks records (in order) from anchor to head.
func Verify(anchor, head Anchor, records []Record) (checked int64, err *Break) {
	v := NewVerifier(anchor)
	for _, r := range records {
		if b := v.Add(r); b != nil {
			return v.Checked(), b
		}
	}
	return v.Checked(), v.End(head)
}
