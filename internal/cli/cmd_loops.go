package cli

import (
	"flag"
	"fmt"
	"time"

	"github.com/switchboard-go/switchboard/internal/api"
)

// operators is the service's loop-breaker operations (the engine
// in-process, or the gateway through the client).
func (s *service) operators() (api.Operators, error) {
	if o, ok := s.Service.(api.Operators); ok {
		return o, nil
	}
	return nil, fmt.Errorf("this service cannot manage the loop breaker")
}

func loopsCommand() *command {
	return &command{
		name:    "loops",
		summary: "list and resume edges the loop breaker paused",
		subs: []*command{{
			name:    "list",
			summary: "list paused edges of the agent-to-agent message graph",
			help:    "An edge (requester session → target session) that carried more agent-to-agent messages than\nsession.agentToAgent.loopBreaker.maxMessages within its window is paused: its messages are held.",
			example: []string{"switchboard loops list", "switchboard loops list --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					return e.withService(reads, func(s *service) error {
						ops, err := s.operators()
						if err != nil {
							return err
						}
						res, err := ops.LoopsList(e.ctx, api.Operator())
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, res)
						}
						if len(res.Pauses) == 0 {
							_, err := fmt.Fprintln(e.stdout, "No paused edges.")
							return err
						}
						now := time.Now()
						t := newTable(e.stdout, "FROM", "TO", "PAUSED", "REASON")
						for _, p := range res.Pauses {
							t.row(p.From, p.To, ago(p.Since, now), p.Reason)
						}
						return t.flush()
					})
				}
			},
		}, {
			name:    "resume",
			summary: "resume a paused edge and send the messages it held",
			args:    "FROM TO",
			example: []string{"switchboard loops resume agent:main:a agent:main:b"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				return func(pos []string) error {
					if err := e.wantArgs(pos, 2, 2); err != nil {
						return err
					}
					return e.withService(writes, func(s *service) error {
						ops, err := s.operators()
						if err != nil {
							return err
						}
						res, err := ops.LoopResume(e.ctx, api.Operator(), api.LoopResumeRequest{From: pos[0], To: pos[1]})
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, res)
						}
						_, err = fmt.Fprintf(e.stdout, "resumed %s → %s: %d held message(s) released\n", pos[0], pos[1], res.Released)
						return err
					})
				}
			},
		}},
	}
}
