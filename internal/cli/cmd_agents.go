package cli

import (
	"flag"
	"fmt"
)

func agentsCommand() *command {
	return &command{
		name:    "agents",
		summary: "list agents",
		subs: []*command{{
			name:    "list",
			summary: "list the agents the requester may spawn under, and the remote A2A agents (agents_list)",
			example: []string{"switchboard agents list", "switchboard agents list --as agent:work:main --json"},
			define: func(e *env, fs *flag.FlagSet) func([]string) error {
				as := fs.String("as", "", "act as session `KEY`")
				return func(pos []string) error {
					if err := e.wantArgs(pos, 0, 0); err != nil {
						return err
					}
					return e.withService(reads, func(s *service) error {
						res, err := s.AgentsList(e.ctx, principal(*as))
						if err != nil {
							return err
						}
						if e.json {
							return printJSON(e.stdout, res)
						}
						t := newTable(e.stdout, "ID", "NAME", "MODEL", "CONFIGURED")
						for _, a := range res.Agents {
							t.row(a.ID, orDash(a.Name), orDash(a.Model), fmt.Sprint(a.Configured))
						}
						if err := t.flush(); err != nil {
							return err
						}
						if len(res.Remotes) > 0 {
							fmt.Fprintln(e.stdout)
							rt := newTable(e.stdout, "REMOTE", "URL", "ALLOWED")
							for _, r := range res.Remotes {
								rt.row(r.ID, r.URL, fmt.Sprint(r.Allowed))
							}
							if err := rt.flush(); err != nil {
								return err
							}
						}
						any := ""
						if res.AllowAny {
							any = " (any agent allowed)"
						}
						_, err = fmt.Fprintf(e.stdout, "requester agent: %s%s\n", res.Requester, any)
						return err
					})
				}
			},
		}},
	}
}
