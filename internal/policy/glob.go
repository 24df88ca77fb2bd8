package policy

import "strings"

// globMatch reports whether name matches pattern, where '*' matches any run
// of characters (including none) and every other character matches itself,
// case-insensitively. The match is anchored at both ends.
func globMatch(pattern, name string) bool {
	p, n := strings.ToLower(pattern), strings.ToLower(name)
	// Iterative matcher with single-star backtracking: linear in practice
	// and no regexp compilation per call.
	pi, ni := 0, 0
	star, mark := -1, 0
	for ni < len(n) {
		switch {
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case pi < len(p) && p[pi] == n[ni]:
			pi++
			ni++
		case star >= 0:
			pi = star + 1
			mark++
			ni = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}
