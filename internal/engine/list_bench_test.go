package engine

import "testing"

// BenchmarkListMessageLimit5Over10kJSON is BenchmarkListMessageLimit5Over10k
// with the tool result encoded as every surface does.
func BenchmarkListMessageLimit5Over10kJSON(b *testing.B) { benchListMessageLimit5(b, true) }
