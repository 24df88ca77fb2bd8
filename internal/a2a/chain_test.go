package a2a

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
	"github.com/switchboard-go/switchboard/internal/api"
)

// TestChainMetadataReachesTheRun: the loop-governance chain a switchboard
// sender puts in the message metadata (wire.ChainKey) is read here: a
// message whose session is already in the chain is refused, naming the
// chain, and an accepted one starts a run that carries the chain on.
func TestChainMetadataReachesTheRun(t *testing.T) {
	h := newHarness(t)
	withChain := func(id, ctxID, text string, chain ...any) map[string]any {
		m := userMsg(id, ctxID, text)
		m["metadata"] = map[string]any{wire.ChainKey: chain}
		return m
	}
	r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{
		"message": withChain("loop-1", "c1", "hi", "agent:x:main", "agent:main:a2a:c1", "agent:main-gw:main")})
	if r.resp.Error == nil || !strings.Contains(r.resp.Error.Message, "already part of this chain") {
		t.Fatalf("a message back into its own chain = %+v", r.resp)
	}
	r = h.rpc(t, "operator", "main", "SendMessage", map[string]any{
		"message": withChain("ok-1", "c2", "hi", "agent:x:main", "agent:main-gw:main")})
	if r.resp.Error != nil {
		t.Fatalf("error: %+v", r.resp.Error)
	}
	task := decode[wire.SendMessageResponse](t, r.resp.Result).Task
	if task == nil || task.Status.State != wire.TaskStateCompleted {
		t.Fatalf("task = %s", r.resp.Result)
	}
	run, err := h.eng.GetRun(t.Context(), api.Operator(), task.ID)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Chain []string `json:"chain"`
	}
	if err := json.Unmarshal(run.Spec, &spec); err != nil || !reflect.DeepEqual(spec.Chain, []string{"agent:x:main", "agent:main-gw:main"}) {
		t.Fatalf("run chain = %v (%v)", spec.Chain, err)
	}
}
