// Package faults runs the real switchboard binary under faults an operator
// meets: SIGKILL at random points under mixed load (TestKillUnderLoad), a
// full file system (TestFullDisk) and hours of traffic (TestSoak, behind
// SWITCHBOARD_SOAK_MINUTES). After each it checks the invariants of
// docs/design.md#durability: every acknowledged message is stored exactly once, every
// announce is delivered exactly once, no run is left running, the JSONL
// mirror equals the store, and no attachment directory is orphaned.
//
// TestMain builds the binary with `go build -race`, so a race in the
// gateway fails the test that hit it. Run:
//
//	go test -race -count=1 ./test/faults/
//	SWITCHBOARD_FAULTS_LONG=1 go test -race -count=1 -timeout 30m ./test/faults/
//	SWITCHBOARD_SOAK_MINUTES=30 go test -count=1 -timeout 40m -run TestSoak ./test/faults/
package faults
