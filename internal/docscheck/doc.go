// Package docscheck keeps the user documentation true: its tests fail when a
// relative link or #anchor in README.md or docs/**/*.md does not resolve
// (anchors follow GitHub's heading slugs), and they run every command of the
// README's fenced sh blocks against a freshly built binary on a temporary
// state dir.
//
// A command that cannot run in a test (it serves until stopped, installs
// system packages, or needs a network) is marked illustrative: a whole block
// by the info string "sh illustrative", one line by "(illustrative)" in its
// trailing comment. The same rule is stated in README.md's "Documentation".
package docscheck
