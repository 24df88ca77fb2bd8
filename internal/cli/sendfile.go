package cli

import (
	"encoding/base64"
	"io"
	"mime"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-go/switchboard/internal/attachments"
	"github.com/switchboard-go/switchboard/internal/domain"
)

// maxSendFileBytes bounds a file `send --file` reads: far above any
// attachment limit a gateway is likely to set, it only keeps a mistaken
// path to a huge file from being read into memory. The gateway applies
// its own limits (tools.sessions_spawn.attachments).
const maxSendFileBytes = 256 << 20

// readFiles reads `send --file` paths as base64 attachments named by
// their base names, typed by their extensions.
func readFiles(paths []string) ([]attachments.Spec, error) {
	var out []attachments.Spec
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, inputFile("--file", p, err)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxSendFileBytes+1))
		f.Close()
		if err != nil {
			return nil, inputFile("--file", p, err)
		}
		if len(data) > maxSendFileBytes {
			return nil, domain.Invalid("--file %s: larger than %d bytes", p, maxSendFileBytes)
		}
		t, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(p)), ";")
		out = append(out, attachments.Spec{Name: filepath.Base(p), Content: base64.StdEncoding.EncodeToString(data),
			Encoding: attachments.EncodingBase64, MimeType: t})
	}
	return out, nil
}
