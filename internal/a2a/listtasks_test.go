package a2a

import (
	"testing"

	"github.com/switchboard-go/switchboard/internal/a2a/wire"
)

func TestListTasksPagesAndFilters(t *testing.T) {
	h := newHarness(t)
	send := func(id, ctxID, text string) wire.Task {
		t.Helper()
		r := h.rpc(t, "operator", "main", "SendMessage", map[string]any{"message": userMsg(id, ctxID, text)})
		if r.resp.Error != nil {
			t.Fatalf("send: %+v", r.resp.Error)
		}
		return *decode[wire.SendMessageResponse](t, r.resp.Result).Task
	}
	first := send("l-1", "ctx-a", "one")
	send("l-2", "ctx-a", "two")
	send("l-3", "ctx-a", "three")
	other := send("l-4", "ctx-b", "four")

	list := func(who string, params map[string]any) listTasksResponse {
		t.Helper()
		r := h.rpc(t, who, "main", "ListTasks", params)
		if r.resp.Error != nil {
			t.Fatalf("ListTasks %v: %+v", params, r.resp.Error)
		}
		return decode[listTasksResponse](t, r.resp.Result)
	}

	// Pages of 2 over the context's three tasks, newest first, each once.
	seen := map[string]bool{}
	token := ""
	pages := 0
	for {
		params := map[string]any{"contextId": "ctx-a", "pageSize": 2}
		if token != "" {
			params["pageToken"] = token
		}
		page := list("operator", params)
		pages++
		if page.TotalSize != 3 || page.PageSize != 2 {
			t.Fatalf("page %d: totalSize %d pageSize %d", pages, page.TotalSize, page.PageSize)
		}
		for _, task := range page.Tasks {
			if task.ContextID != "ctx-a" || seen[task.ID] {
				t.Fatalf("page %d: task %s of %s (seen %v)", pages, task.ID, task.ContextID, seen[task.ID])
			}
			if len(task.Artifacts) != 0 {
				t.Errorf("artifacts without includeArtifacts: %+v", task.Artifacts)
			}
			seen[task.ID] = true
		}
		if token = page.NextPageToken; token == "" {
			break
		}
	}
	if len(seen) != 3 || pages != 2 || !seen[first.ID] {
		t.Fatalf("listed %v in %d pages", seen, pages)
	}

	// Without a context: every task of the agent; by status.
	all := list("operator", map[string]any{"includeArtifacts": true})
	if all.TotalSize != 4 || len(all.Tasks) != 4 || all.Tasks[0].ID != other.ID || len(all.Tasks[0].Artifacts) != 1 {
		t.Fatalf("all tasks = %+v", all)
	}
	if done := list("operator", map[string]any{"status": "TASK_STATE_COMPLETED"}); done.TotalSize != 4 {
		t.Errorf("completed = %d tasks, want 4", done.TotalSize)
	}
	if working := list("operator", map[string]any{"status": "TASK_STATE_WORKING"}); working.TotalSize != 0 || working.Tasks == nil {
		t.Errorf("working = %+v, want an empty list", working)
	}
	if none := list("operator", map[string]any{"contextId": "never-used"}); none.TotalSize != 0 {
		t.Errorf("an unused context lists %d tasks", none.TotalSize)
	}

	// A principal bound to another session sees none of these tasks.
	if bound := list("bound", nil); bound.TotalSize != 0 {
		t.Errorf("a bound principal lists %d tasks of other sessions", bound.TotalSize)
	}
}
