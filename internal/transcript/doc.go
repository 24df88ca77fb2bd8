// Package transcript reads and writes OpenClaw-format JSONL transcripts.
//
// The store is the source of truth for transcripts; a Mirror appends each
// session's messages to <state-dir>/agents/<agentId>/sessions/<sessionId>.jsonl
// so people can read, grep and tail them and OpenClaw's tools can open them.
// ReadFile parses such files (also ones OpenClaw itself wrote, for import),
// and ActiveBranch picks the branch the session is on.
//
// File format: a {"type":"session",...} header line, then one
// {"type":<entry type>,"id","parentId","timestamp",...} line per entry;
// entries of type "message" carry the raw message under "message".
package transcript
