package runs

import (
	"math"
	"runtime/debug"
)

// defaultContextCacheBytes is the context cache's bound when
// Options.ContextCacheBytes is 0. A thousand busy sessions of a few hundred
// short messages each come to about 100 MiB by messageCost's estimate; at
// 64 MiB the cache held half of them and every other turn read its context
// from the store (a quarter of a turn's CPU in `bench chat`). A process
// given a memory limit (GOMEMLIMIT) keeps the cache to a quarter of it, so
// the cache alone never pushes the collector into running all the time.
const defaultContextCacheBytes = 256 << 20

// contextCacheBytes is the default bound under the memory limit memLimit
// (debug.SetMemoryLimit(-1); math.MaxInt64 when none is set).
func contextCacheBytes(memLimit int64) int {
	const floor = 8 << 20
	if memLimit <= 0 || memLimit == math.MaxInt64 || memLimit/4 >= defaultContextCacheBytes {
		return defaultContextCacheBytes
	}
	return int(max(memLimit/4, floor))
}

// processContextCacheBytes reads this process's memory limit.
func processContextCacheBytes() int { return contextCacheBytes(debug.SetMemoryLimit(-1)) }
