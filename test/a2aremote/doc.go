// Package a2aremote tests sessions_send to remote A2A agents against real,
// independent processes: two `switchboard gateway` processes sending to
// each other over A2A (including a loop that loop governance stops), and
// the official JavaScript SDK (@a2a-js/sdk 1.3.0, agent.mjs) running as the
// remote agent. package.json pins the SDK; .ci/run installs it with npm ci.
package a2aremote
