// Package testkit is what the process-level test suites share: the
// switchboard binary built once per test process, gateways started on a
// config and waited for until they listen, a PostgreSQL cluster, the real
// clients' Node 24 and npm bins, Chromium, and waiting on a condition
// with a deadline. test/conformance, test/faults, test/replicas,
// test/realclients, test/a2aremote and the channel tests use it instead
// of each keeping its own copy.
//
//	func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
//
//	func TestSomething(t *testing.T) {
//		g := testkit.StartGateway(t, testkit.GatewayOptions{Config: `{ … }`})
//		status, body, err := g.Do("GET", "/healthz", nil)
//		…
//		g.Kill()
//		g = g.Restart() // the same state dir, a new process
//	}
//
// Nothing here sleeps to synchronize: a gateway is ready when it prints
// the line that says where it listens, and conditions are polled against
// a deadline that fails the test with what was awaited.
package testkit
