package cli

import (
	"fmt"

	"github.com/switchboard-go/switchboard/internal/app"
)

// requireNoGateway refuses an offline command (import, export) while a
// gateway runs on the state dir: it must have the store to itself. verb
// and gerund name the command ("import", "importing").
func requireNoGateway(dir, verb, gerund string) error {
	info, running, err := app.ReadGatewayInfo(dir)
	if err != nil {
		return err
	}
	if running {
		return fmt.Errorf("%s: the gateway (pid %d) holds %s; stop it before %s", verb, info.PID, dir, gerund)
	}
	return nil
}
