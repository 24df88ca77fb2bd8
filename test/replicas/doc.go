// Package replicas proves the claims of several `switchboard gateway`
// processes on one PostgreSQL database (docs/deployment.md): a run is
// executed by exactly one replica and a session's runs stay in order, a
// wait or a WebSocket client on one replica sees the runs another
// executes, a spawn's announce is delivered once whichever replica ran the
// child, and a killed replica's runs are taken over after its lease.
//
// The tests start real gateway processes built from this repository on a
// throwaway PostgreSQL cluster (store/pgtest). Without the PostgreSQL
// binaries they skip, saying why, except in CI, where they fail.
package replicas
