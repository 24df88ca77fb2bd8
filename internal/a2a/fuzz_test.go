package a2a

import (
	"encoding/json"
	"testing"
)

// FuzzSendParams: any params of SendMessage or message/send decode to a
// checked message or to a JSON-RPC error with a code, never a panic.
func FuzzSendParams(f *testing.F) {
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`), false)
	f.Add([]byte(`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"text","text":"hi"}]}}`), true)
	f.Add([]byte(`{"message":{"messageId":"m","role":"ROLE_USER","contextId":"a b","parts":[{"data":[1,2]},{"raw":"AAA="}]}}`), false)
	f.Add([]byte(`{"message":{"kind":"message","messageId":"m","role":"user","parts":[{"kind":"file","file":{"uri":"x"}}]},"configuration":{"historyLength":-3}}`), true)
	f.Add([]byte(`null`), false)
	f.Fuzz(func(t *testing.T, params []byte, legacy bool) {
		c := &call{params: json.RawMessage(params)}
		if legacy {
			c.gen = gen03
		}
		sp, e := decodeSend(c)
		if e != nil {
			if e.obj.Code == 0 || e.obj.Message == "" {
				t.Fatalf("error without code or message: %+v", e.obj)
			}
			return
		}
		if sp.msg.MessageID == "" || sp.msg.Text == "" {
			t.Fatalf("accepted a message without id or text: %+v", sp.msg)
		}
		if err := checkContextID("contextId", sp.msg.ContextID); err != nil {
			t.Fatalf("accepted a bad contextId %q", sp.msg.ContextID)
		}
	})
}
