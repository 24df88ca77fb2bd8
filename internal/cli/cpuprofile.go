package cli

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfileEnv names a file a gateway writes its CPU profile to, from
// start to shutdown (`go tool pprof -top switchboard FILE`). An environment
// variable rather than a flag: `bench gateway` starts its gateway with its
// own environment, so `SWITCHBOARD_CPUPROFILE=gw.prof switchboard bench
// gateway …` profiles the gateway under load without another option.
const cpuProfileEnv = "SWITCHBOARD_CPUPROFILE"

// startCPUProfile starts the profile $SWITCHBOARD_CPUPROFILE asks for and
// returns the function that ends it (a no-op when unset).
func startCPUProfile(getenv func(string) string) (stop func() error, err error) {
	path := getenv(cpuProfileEnv)
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", cpuProfileEnv, err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
