//go:build !race

package engine

// raceDetector reports a build with the race detector (race_on_test.go).
const raceDetector = false
