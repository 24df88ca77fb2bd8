package openclawimport

// planWorkers is how many goroutines plan candidates when procs may run
// Go code at once: one fewer than procs, so the store's writer goroutine,
// the import's critical path, has a processor of its own. With as many
// planners as processors the writer waited for one behind them: an
// execution trace showed it runnable and not running for much of an
// import. Planning a message costs about what writing it does, so one
// planner per spare processor keeps up (docs/benchmarks.md#import).
func planWorkers(procs int) int {
	return max(procs-1, 1)
}
