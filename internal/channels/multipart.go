package channels

import (
	"bytes"
	"mime/multipart"
	"net/textproto"
	"strings"
)

// FormFile is a file part of a multipart form.
type FormFile struct {
	// Field is the form field, Name the file name, Type its media type.
	Field, Name, Type string
	Data              []byte
}

// quoteEscaper escapes a file name for a Content-Disposition parameter;
// a line break would end the part's header, so it becomes a space.
var quoteEscaper = strings.NewReplacer("\\", "\\\\", `"`, "\\\"", "\r", " ", "\n", " ")

// MultipartForm builds a multipart/form-data body of fields (in order,
// name then value) and files, each file part with its own Content-Type
// (multipart.Writer's CreateFormFile would say application/octet-stream,
// and providers type media by it). It returns the body and its
// Content-Type.
func MultipartForm(fields []string, files ...FormFile) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for i := 0; i+1 < len(fields); i += 2 {
		_ = w.WriteField(fields[i], fields[i+1])
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="`+quoteEscaper.Replace(f.Field)+`"; filename="`+quoteEscaper.Replace(f.Name)+`"`)
		h.Set("Content-Type", f.Type)
		p, _ := w.CreatePart(h)
		_, _ = p.Write(f.Data)
	}
	_ = w.Close()
	return b.Bytes(), w.FormDataContentType()
}
