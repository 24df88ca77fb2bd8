package api

// JSONCharBytes is the most bytes a JSON encoder writes for one character
// of a text: a character outside the Basic Multilingual Plane escaped as a
// surrogate pair (`\ud83d\ude00`), as Python's json.dumps does by default.
const JSONCharBytes = 12

// EnvelopeBytes is the room a request body has beyond its largest text:
// its other fields, each bounded to a few hundred characters.
const EnvelopeBytes = 64 << 10

// TextBodyBytes is the largest request body that carries one text of
// limit l (a chat or send message, a spawn's task) in JSON: every
// character at its longest encoding, plus the envelope. No valid request
// of such a route is larger.
func TextBodyBytes(l Limit) int64 { return l.Max*JSONCharBytes + EnvelopeBytes }

// AttachmentFileBytes is the room one attachment has beyond its content:
// its name, encoding and MIME type.
const AttachmentFileBytes = 1 << 10

// SpawnBodyBytes is the largest sessions_spawn request body: its task
// (TextBodyBytes of TaskChars) and attachments of at most maxTotalBytes
// in all over at most maxFiles files. An attachment's content counts
// twice its size — base64 is four thirds, and a text sent as utf8 grows
// by its escapes (a newline or a quote takes two bytes) — so text whose
// JSON is more than twice its size (mostly control characters) must be
// sent as base64.
func SpawnBodyBytes(maxTotalBytes int64, maxFiles int) int64 {
	return TextBodyBytes(TaskChars) + 2*maxTotalBytes + int64(maxFiles)*AttachmentFileBytes
}
