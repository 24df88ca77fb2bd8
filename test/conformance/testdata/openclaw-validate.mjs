// openclaw-validate.mjs answers, one JSON line per JSON line read, whether
// a gateway frame passes OpenClaw's own protocol schemas (the openclaw npm
// package's dist/gateway/protocol module). The conformance test runs it as
// a long-lived process. Usage: node openclaw-validate.mjs <node_modules>
//
// Request:  {"id": n, "kind": "params"|"result"|"event"|"response"|"eventFrame", "name": "<method or event>", "value": …}
// Answer:   {"id": n, "schema": "<schema name, or '' when OpenClaw has none>", "ok": bool, "errors": "<OpenClaw's words>"}
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const modules = process.argv[2];
const protocol = await import(pathToFileURL(join(modules, "openclaw/dist/gateway/protocol/index.js")).href);
const { Compile } = await import(pathToFileURL(join(modules, "typebox/build/compile/index.mjs")).href);

// "sessions.messages.subscribe" → "SessionsMessagesSubscribe"
const pascal = (name) => name.split(/[._-]/).filter(Boolean).map((p) => p[0].toUpperCase() + p.slice(1)).join("");

const compiled = new Map();
function checker(schemaName) {
  if (!compiled.has(schemaName)) {
    const schema = protocol[schemaName];
    compiled.set(schemaName, schema ? Compile(schema) : null);
  }
  return compiled.get(schemaName);
}

function check(req) {
  if (req.kind === "params") {
    const name = `validate${pascal(req.name)}Params`;
    const v = protocol[name];
    if (typeof v !== "function") return { schema: "", ok: true, errors: "" };
    const ok = v(req.value ?? {});
    return { schema: name, ok, errors: ok ? "" : protocol.formatValidationErrors(v.errors) };
  }
  const schemaName = {
    result: req.name === "connect" ? "HelloOkSchema" : `${pascal(req.name)}ResultSchema`,
    event: `${pascal(req.name)}EventSchema`,
    response: "ResponseFrameSchema",
    eventFrame: "EventFrameSchema",
    error: "ErrorShapeSchema",
  }[req.kind];
  const c = schemaName && checker(schemaName);
  if (!c) return { schema: "", ok: true, errors: "" };
  const ok = c.Check(req.value);
  return { schema: schemaName, ok, errors: ok ? "" : protocol.formatValidationErrors([...c.Errors(req.value)]) };
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (!line.trim()) continue;
  let req;
  try {
    req = JSON.parse(line);
    process.stdout.write(JSON.stringify({ id: req.id, ...check(req) }) + "\n");
  } catch (err) {
    process.stdout.write(JSON.stringify({ id: req?.id ?? -1, schema: "", ok: false, errors: `validator failed: ${err?.message ?? err}` }) + "\n");
  }
}
