package openclawimport

// planWorkers is how many goroutines plan candidates when procs may run
// Go code at once: one fewer than procs, so the store's writer goroutine,
// the import's critical path, has a processor of its own. With as many
// planners as processors the writer waited for one behind them: an
// execution trace of BenchmarkImport on two cores showed it runnable and
// not running for 0.46 s of a 1.15 s import, and with one planner the
// import ran 9–10% faster at the same CPU (docs/benchmarks.md, "Import,
// session 8"). Planning a message costs about what writing it does (7.0
// and 7.5 µs of CPU there), so one planner per spare processor keeps up.
func planWorkers(procs int) int {
	return max(procs-1, 1)
}
