// Package textcheck holds the one rule for short user-chosen names that
// end up in logs, terminals, UIs and file systems — session labels and
// attachment names: no NUL or other control characters (C0, DEL, C1),
// no bidirectional-formatting characters that can make text read
// differently from what it is, and valid UTF-8. Session keys follow a
// stricter rule of their own (internal/sessionkey), which also refuses
// everything this package refuses.
package textcheck
