package conformance

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// Rows for Deliver and Outbox: operator-only operations.

// Reasons the rows of this file share.
const (
	noCLIDeliver = "the CLI's send --to acts as the operator (or --as); its cells are in the send-with-a-channel row (rows_channels_test.go)"
	noWSOutbox   = "the WS protocol has no outbox method"
	noMCPOutbox  = "no tool lists the outbox or queues a delivery"
)

// deliverCall queues a direct delivery into key as token on surface s.
func deliverCall(t *testing.T, w *world, s surface, token, as string, body m) outcome {
	if s == sWS {
		return w.wsOutcome(t, token, "send", body)
	}
	path := "/api/send"
	if as != "" {
		path += "?as=" + url.QueryEscape(as)
	}
	return w.httpOutcome(t, token, http.MethodPost, path, body)
}

// deliverRows: Deliver (WS `send`, POST /api/send): only a principal
// without a requester, with write scope; the answer's messageId is the
// outbox row's id, never the idempotency key.
func deliverRows(_ *world) []row {
	others := []cell{na(sCLI, noCLIDeliver), na(sCLIGW, noCLIDeliver), na(sMCPStdio, noMCPOutbox), na(sMCPHTTP, noMCPOutbox)}
	queued := func(s surface, via, token string, n int) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			key := fmt.Sprintf("agent:main:deliver-%d", n)
			idem := fmt.Sprintf("deliver-idem-%d", n)
			o := deliverCall(t, w, s, token, "", m{"sessionKey": key, "to": "ops", "message": "direct words", "idempotencyKey": idem})
			if !o.OK {
				return o
			}
			id := jsonPath([]byte(o.Payload), "messageId")
			st, b := w.httpDo(t, operatorToken, http.MethodGet, "/api/outbox?session="+url.QueryEscape(key), nil)
			var list struct {
				Items []struct {
					ID json.Number `json:"id"`
				} `json:"items"`
			}
			if st != http.StatusOK || json.Unmarshal(b, &list) != nil {
				t.Fatalf("GET /api/outbox?session=%s: %d %s", key, st, b)
			}
			found := false
			for _, it := range list.Items {
				found = found || (id != "" && it.ID.String() == id)
			}
			o.Fields = map[string]string{
				"messageId is an outbox row's id":  fmt.Sprint(found),
				"messageId is the idempotency key": fmt.Sprint(strings.Contains(id, idem)),
			}
			o.Payload += "\noutbox: " + string(b)
			return o
		})
	}
	refused := func(s surface, via, token, as string) cell {
		return custom(s, via, func(t *testing.T, w *world) outcome {
			return deliverCall(t, w, s, token, as, m{"to": "ops", "message": "not for you", "idempotencyKey": "deliver-refused-" + via})
		})
	}
	return []row{
		{finding: "9", name: "operator and write token: deliver answers a real messageId",
			want: outcome{OK: true, Status: "queued", Fields: map[string]string{
				"messageId is an outbox row's id": "true", "messageId is the idempotency key": "false"}},
			cells: append([]cell{
				queued(sHTTP, "POST /api/send operator", operatorToken, 1),
				queued(sHTTP, "POST /api/send write token", writeToken, 2),
				queued(sWS, "send operator", operatorToken, 3),
				queued(sWS, "send write token", writeToken, 4),
			}, others...)},
		{finding: "2", name: "bound token and sandboxed requester: deliver needs operator rights",
			want: outcome{Code: "forbidden", Msg: "needs operator rights"},
			cells: append([]cell{
				refused(sHTTP, "POST /api/send bound", boundToken, ""),
				refused(sHTTP, "POST /api/send bound admin", boundAdminToken, ""),
				refused(sHTTP, "POST /api/send as sandbox", operatorToken, sandboxKey),
				refused(sWS, "send bound", boundToken, ""),
				refused(sWS, "send bound admin", boundAdminToken, ""),
			}, others...)},
		{finding: "1", name: "read token: deliver refused for missing scope",
			want: outcome{Code: "forbidden", Msg: "missing scope"},
			cells: append([]cell{
				refused(sHTTP, "POST /api/send read token", readToken, ""),
				refused(sWS, "send read token", readToken, ""),
			}, others...)},
	}
}

// outboxRequired are the keys every outbox item has (the rest are
// omitted when empty).
var outboxRequired = []string{"id", "idempotencyKey", "kind", "sessionKey", "payload", "status", "attempts", "nextAttemptAt", "createdAt"}

// outboxShape reads an outbox listing ({items: […]}, with or without a
// count): whether it has items, and which required keys any item lacks.
func outboxShape(p []byte) map[string]string {
	var list struct {
		Items []map[string]json.RawMessage `json:"items"`
	}
	if json.Unmarshal(p, &list) != nil || list.Items == nil {
		return map[string]string{"items is a list": "false"}
	}
	missing := map[string]bool{}
	idNumber := true
	for _, it := range list.Items {
		for _, k := range outboxRequired {
			if _, ok := it[k]; !ok {
				missing[k] = true
			}
		}
		var n json.Number
		idNumber = idNumber && json.Unmarshal(it["id"], &n) == nil
	}
	var ks []string
	for k := range missing {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return map[string]string{
		"items is a list":              "true",
		"has items":                    fmt.Sprint(len(list.Items) > 0),
		"keys missing from some items": strings.Join(ks, ","),
		"ids are numbers":              fmt.Sprint(idNumber),
	}
}

// outboxRows: Outbox (CLI `outbox list`, GET /api/outbox): operator only,
// the same items on every surface.
func outboxRows(_ *world) []row {
	return []row{
		{finding: "10", name: "outbox list: the same items shape on every surface",
			want: outcome{OK: true, Fields: map[string]string{
				"items is a list": "true", "has items": "true", "keys missing from some items": "", "ids are numbers": "true"}},
			fields: outboxShape,
			cells: []cell{
				cliC(sCLI, "outbox", "list"),
				cliC(sCLIGW, "outbox", "list"),
				httpC(operatorToken, http.MethodGet, "/api/outbox", nil),
				httpC(readToken, http.MethodGet, "/api/outbox", nil),
				na(sWS, noWSOutbox), na(sMCPStdio, noMCPOutbox), na(sMCPHTTP, noMCPOutbox),
			}},
		{finding: "2", name: "bound token and sandboxed requester: outbox list needs operator rights",
			want: outcome{Code: "forbidden", Msg: "needs operator rights"},
			cells: []cell{
				httpC(boundToken, http.MethodGet, "/api/outbox", nil),
				httpC(boundAdminToken, http.MethodGet, "/api/outbox", nil),
				httpC(operatorToken, http.MethodGet, "/api/outbox?as="+esc(sandboxKey), nil),
				na(sCLI, "the outbox command has no --as (it acts as the operator)"), na(sCLIGW, "the outbox command has no --as"),
				na(sWS, noWSOutbox), na(sMCPStdio, noMCPOutbox), na(sMCPHTTP, noMCPOutbox),
			}},
	}
}
