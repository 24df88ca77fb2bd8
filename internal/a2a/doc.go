// Package a2a serves switchboard's agents over the Agent2Agent protocol
// (A2A 1.0, JSON-RPC binding, and the 0.3 generation many clients still
// send): agent cards, SendMessage, SendStreamingMessage, GetTask,
// CancelTask, SubscribeToTask, ListTasks and the push notification
// configs.
//
// A2A is one more surface in front of api.Service: every call carries the
// principal the gateway authenticated and goes through the engine's gate
// (scopes, bound sessions, visibility, idempotency). A message is a chat
// into the session agent:<agentId>:a2a:<contextId>; the task is the run it
// starts, so task ids are run ids and tasks survive restarts because runs
// do. Nothing here reads the configuration: the cards come from
// Options.Agents, everything else from the Service, except push
// notifications, whose configs and updates are outbox rows (Pushes reads
// and writes them; PushDeliverer posts the updates).
package a2a
