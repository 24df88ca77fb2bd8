package gateway

import (
	"maps"
	"slices"
)

// MethodNames lists the methods the gateway answers, sorted, for the
// tests outside the package.
func MethodNames() []string {
	return slices.Sorted(maps.Keys((&Server{}).methodTable()))
}
