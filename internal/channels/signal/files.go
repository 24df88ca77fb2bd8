package signal

import (
	"encoding/base64"
	"strings"

	"github.com/switchboard-go/switchboard/internal/attachments"
)

// SendsFiles marks the adapter as one that sends files (channels.FileSender).
func (a *Adapter) SendsFiles() {}

// dataURIs are files in signal-cli's form for `send`'s attachments:
// data:<type>;filename=<name>;base64,<data>. A ';' or ',' in a name would
// end its field, so it becomes '_'.
func dataURIs(files []attachments.File) []string {
	var out []string
	for _, f := range files {
		name := strings.NewReplacer(";", "_", ",", "_").Replace(f.Name)
		out = append(out, "data:"+attachments.TypeOf(f)+";filename="+name+";base64,"+base64.StdEncoding.EncodeToString(f.Data))
	}
	return out
}
