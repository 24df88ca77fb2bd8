package cli

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
	"github.com/switchboard-go/switchboard/internal/audit"
)

// auditor is the service's audit log reads (the engine in-process, or the
// gateway through the client).
func (s *service) auditor() (api.Auditor, error) {
	if a, ok := s.Service.(api.Auditor); ok {
		return a, nil
	}
	return nil, fmt.Errorf("this service cannot read the audit log")
}

// auditPage is how many records one read of the chain asks for.
const auditPage = 1000

// chainPages reads the chain oldest first from after, calling each with
// every page; the first page's anchor and head describe the chain read.
func chainPages(e *env, a api.Auditor, after int64, each func(api.AuditChainResult) error) error {
	limit := int64(auditPage)
	for {
		req := api.AuditChainRequest{Limit: &limit}
		if after > 0 {
			req.Cursor = strconv.FormatInt(after, 10)
		}
		page, err := a.AuditChain(e.ctx, api.Operator(), req)
		if err != nil {
			return err
		}
		if err := each(page); err != nil {
			return err
		}
		if page.NextCursor == "" || len(page.Records) == 0 {
			return nil
		}
		after = page.Records[len(page.Records)-1].Seq
	}
}

func auditCommand() *command {
	return &command{
		name:    "audit",
		summary: "read, verify and export the tamper-evident audit log",
		subs: []*command{{
			name:    "list",
			summary: "list the newest records of the audit log",
			help:    "Every inter-session message, spawn, refusal of the gate, budget stop, token use, config reload,\nadmin action, loop-breaker pause and approval decision is a record; each carries the hash of the one before.",
			example: []string{"switchboard audit list", "switchboard audit list --limit 200 --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				limit := fs.Int("limit", 50, "show the newest `N` records (1-1000)")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					if *limit < 1 || int64(*limit) > api.AuditChainLimit.Max {
						return fmt.Errorf("--limit must be between 1 and %d (got %d)", api.AuditChainLimit.Max, *limit)
					}
					return e.withService(reads, func(s *service) error {
						a, err := s.auditor()
						if err != nil {
							return err
						}
						one := int64(1)
						first, err := a.AuditChain(e.ctx, api.Operator(), api.AuditChainRequest{Limit: &one})
						if err != nil {
							return err
						}
						n := int64(*limit)
						req := api.AuditChainRequest{Limit: &n}
						if from := max(first.Head.Seq-n, first.Anchor.Seq); from > 0 {
							req.Cursor = strconv.FormatInt(from, 10)
						}
						page, err := a.AuditChain(e.ctx, api.Operator(), req)
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, page.Records)
						}
						if len(page.Records) == 0 {
							_, err := fmt.Fprintln(e.stdout, "The audit log is empty.")
							return err
						}
						now := time.Now()
						t := newTable(e.stdout, "SEQ", "WHEN", "KIND", "ACTOR", "OP", "TARGET", "OUTCOME", "DETAIL")
						for _, r := range page.Records {
							t.row(strconv.FormatInt(r.Seq, 10), ago(r.At, now), string(r.Kind), r.Actor, r.Op, r.Target, r.Outcome, clip(r.Detail, 60))
						}
						return t.flush()
					})
				}
			},
		}, {
			name:    "verify",
			summary: "check the audit log's hash chain; exits 1 naming the first broken record",
			example: []string{"switchboard audit verify"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					return e.withService(reads, func(s *service) error {
						a, err := s.auditor()
						if err != nil {
							return err
						}
						var v *audit.Verifier
						var st audit.State
						brk := (*audit.Break)(nil)
						err = chainPages(e, a, 0, func(page api.AuditChainResult) error {
							if v == nil {
								st = audit.State{Anchor: page.Anchor, Head: page.Head}
								v = audit.NewVerifier(st.Anchor)
							}
							for _, r := range page.Records {
								if r.Seq > st.Head.Seq {
									break
								}
								if brk = v.Add(r); brk != nil {
									return brk
								}
							}
							return nil
						})
						if brk == nil && err == nil {
							brk = v.End(st.Head)
						}
						if brk != nil {
							if e.json {
								_ = printJSON(e.stdout, map[string]any{"ok": false, "break": brk, "checked": v.Checked()})
							}
							return brk
						}
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, map[string]any{"ok": true, "checked": v.Checked(), "anchor": st.Anchor, "head": st.Head})
						}
						_, err = fmt.Fprintf(e.stdout, "ok: %d records verified (from record %d to %d; head hash %s)\n", v.Checked(), st.Anchor.Seq+1, st.Head.Seq, st.Head.Hash)
						return err
					})
				}
			},
		}, {
			name:    "export",
			summary: "write the whole audit log as JSON Lines, oldest first",
			help:    "One record per line: {seq, at, kind, actor, surface, op, session, target, runId, agentId, toolCallId,\noutcome, detail, prev, hash}. The first record's prev is the anchor's hash (the last pruned record).",
			example: []string{"switchboard audit export > audit.jsonl", "switchboard audit export --out audit.jsonl"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				out := fs.String("out", "", "write to `FILE` instead of standard output")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					return e.withService(reads, func(s *service) error {
						a, err := s.auditor()
						if err != nil {
							return err
						}
						w := e.stdout
						if *out != "" {
							f, err := os.OpenFile(*out, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
							if err != nil {
								return inputFile("--out", *out, err)
							}
							defer f.Close()
							w = f
						}
						bw := bufio.NewWriter(w)
						enc := json.NewEncoder(bw)
						var head int64 = -1
						err = chainPages(e, a, 0, func(page api.AuditChainResult) error {
							if head < 0 {
								head = page.Head.Seq
							}
							for _, r := range page.Records {
								if r.Seq > head {
									return nil
								}
								if err := enc.Encode(r); err != nil {
									return err
								}
							}
							return nil
						})
						if err != nil {
							return err
						}
						return bw.Flush()
					})
				}
			},
		}},
	}
}
