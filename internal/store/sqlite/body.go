package sqlite

import "github.com/switchboard-go/switchboard/internal/store/msgbody"

// Message bodies are stored compressed (schema version 6, msgbody): a BLOB
// of msgbody's format, or TEXT holding the plain JSON when compression
// would not make it smaller and in every row written before version 6.
// Readers accept both, so an upgrade rewrites nothing.

// bodyArg returns the value the body column stores for the message JSON
// js: the compressed BLOB, or js as TEXT when that is not smaller. js is
// the writer's scratch buffer; the result does not alias it.
func bodyArg(c *msgbody.Codec, js []byte) any {
	if z := c.Encode(nil, js); msgbody.IsCompressed(z) {
		return z
	}
	return string(js)
}
