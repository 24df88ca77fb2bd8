package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

// approvalOps is the service's approval operations (the engine
// in-process, or the gateway through the client).
func (s *service) approvalOps() (api.Approvals, error) {
	if o, ok := s.Service.(api.Approvals); ok {
		return o, nil
	}
	return nil, fmt.Errorf("this service cannot manage approvals")
}

func approvalsCommand() *command {
	return &command{
		name:    "approvals",
		summary: "list, approve and deny agent-to-agent calls held for an operator",
		subs: []*command{{
			name:    "list",
			summary: "list the calls waiting for a decision",
			help:    "A sessions_send or sessions_spawn that an approvals.rules entry matches waits here until an\noperator approves or denies it, or approvals.expiresSeconds pass (it is then denied).",
			example: []string{"switchboard approvals list", "switchboard approvals list --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					return e.withService(reads, func(s *service) error {
						ops, err := s.approvalOps()
						if err != nil {
							return err
						}
						res, err := ops.ApprovalList(e.ctx, api.Operator(), api.ApprovalListRequest{})
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, res)
						}
						return printApprovals(e, res.Items, "No calls wait for approval.")
					})
				}
			},
		}, {
			name:    "history",
			summary: "list decided approvals, newest first",
			example: []string{"switchboard approvals history", "switchboard approvals history --limit 10"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				limit := fs.Int("limit", int(api.ApprovalHistoryLimit.Default), "at most `N` approvals ("+api.ApprovalHistoryLimit.Describe()+")")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					return e.withService(reads, func(s *service) error {
						ops, err := s.approvalOps()
						if err != nil {
							return err
						}
						res, err := ops.ApprovalHistory(e.ctx, api.Operator(), api.ApprovalHistoryRequest{Limit: limit})
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, res)
						}
						return printApprovals(e, res.Items, "No decided approvals.")
					})
				}
			},
		}, resolveCommand("approve", "allow a held call (once, or --always for its edge)", api.DecisionAllowOnce),
			resolveCommand("deny", "deny a held call", api.DecisionDeny)},
	}
}

// resolveCommand is approvals approve|deny ID.
func resolveCommand(name, summary, decision string) *command {
	return &command{
		name:    name,
		summary: summary,
		args:    "ID",
		example: []string{"switchboard approvals " + name + " apr_0123456789abcdef"},
		define: func(e *env, fs *flag.FlagSet) func([]string) error {
			var always *bool
			if decision != api.DecisionDeny {
				always = fs.Bool("always", false, "allow-always: later calls of the same rule, requester and target are not held")
			}
			return func(pos []string) error {
				if err := e.wantArgs(pos, 1, 1, "ID"); err != nil {
					return err
				}
				d := decision
				if always != nil && *always {
					d = api.DecisionAllowAlways
				}
				return e.withService(writes, func(s *service) error {
					ops, err := s.approvalOps()
					if err != nil {
						return err
					}
					res, err := ops.ApprovalResolve(e.ctx, api.Operator(), api.ApprovalResolveRequest{ID: pos[0], Kind: api.ApprovalKindPlugin, Decision: d})
					if err != nil {
						return err
					}
					if e.json {
						return printJSON(e.stdout, res)
					}
					if !res.Applied {
						_, err = fmt.Fprintf(e.stdout, "approval %s was already %s; nothing changed\n", pos[0], res.Approval.Status)
						return err
					}
					_, err = fmt.Fprintf(e.stdout, "approval %s: %s (%s)\n", pos[0], res.Approval.Status, d)
					return err
				})
			}
		},
	}
}

func printApprovals(e *env, items []api.ApprovalSnapshot, none string) error {
	if len(items) == 0 {
		_, err := fmt.Fprintln(e.stdout, none)
		return err
	}
	now := time.Now()
	t := newTable(e.stdout, "ID", "STATUS", "RAISED", "CALL", "DETAIL")
	for _, a := range items {
		t.row(a.ID, a.Status, ago(a.CreatedAtMs, now), a.Presentation.Description, a.Presentation.Detail)
	}
	return t.flush()
}
