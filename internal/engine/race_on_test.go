//go:build race

package engine

// raceDetector reports a build with the race detector, which slows the
// engine several times: the budget property then runs fewer trees.
const raceDetector = true
