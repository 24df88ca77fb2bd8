// Package attachments validates, decodes and materializes the inline files
// of sessions_spawn: they are checked against the configured limits, written
// to <workspace>/.switchboard/attachments/<uuid>/ with a manifest, described
// to the child in its task, redacted from persisted tool-call arguments and
// removed again with a symlink-safe containment check.
package attachments
