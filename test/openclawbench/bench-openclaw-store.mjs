#!/usr/bin/env node
// Performance anchor for OpenClaw's JSON session store (sessions.json + <sessionId>.jsonl).
// Calls the REAL functions from an npm install of `openclaw` (default 2026.5.28, the last
// sessions.json-era line); nothing of OpenClaw is copied here. The bundle's chunk files
// export functions under minified aliases, so this script locates each function by
// grepping the dist for its definition and mapping the `export { name as x }` alias.
//
// Usage (docs/benchmarks.md, "Side by side with OpenClaw's session store"):
//   node bench-openclaw-store.mjs --dist $WORK/openclaw/node_modules/openclaw/dist \
//        --sessions 10000 --messages 50 --big 100000 --state $WORK/state-10000 --out result.json
//
// Phases: generate | bench | all (default all). Generation is skipped when --state already
// holds a matching .bench-meta.json (use --regen to force).

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";

// ---------- args ----------
const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, arr) => {
    if (a.startsWith("--")) {
      const k = a.slice(2);
      const v = arr[i + 1] && !arr[i + 1].startsWith("--") ? arr[i + 1] : "true";
      acc.push([k, v]);
    }
    return acc;
  }, []),
);
if (!args.dist) { console.error("--dist DIR (the installed openclaw package's dist/) is required"); process.exit(2); }
const DIST = path.resolve(args.dist);
const N = Number(args.sessions ?? 1000);
const M = Number(args.messages ?? 50);
const BIG = Number(args.big ?? 100000);
const STATE = path.resolve(args.state ?? path.join(os.tmpdir(), `openclaw-bench-state-${N}`));
const PHASE = args.phase ?? "all";
const REPEAT = Number(args.repeat ?? 10);
const UPDATES = Number(args.updates ?? 200);
const ACTIVE_FRACTION = Number(args["active-fraction"] ?? 0.1); // share of sessions updated < 60 min ago
const WITH_TRANSCRIPTS = args["no-transcripts"] !== "true";
const OUT = args.out ? path.resolve(args.out) : null;
// OpenClaw 2026.5.x defaults session.maintenance to mode "enforce", maxEntries 500: a store above
// ~500 entries is capped (and the dropped transcripts renamed *.deleted.<ts>) on the next write.
// "uncapped" keeps enforce mode (so every save still runs the prune/cap scan) but raises the
// caps so the N-session store survives; "default" uses OpenClaw's defaults unchanged.
const MAINT = args.maintenance ?? "uncapped";
// "warn" = OpenClaw's documented alternative mode (no pruning/capping on write; only warnings).
const CONFIG = MAINT === "default" ? {} : { session: { maintenance: { mode: MAINT === "warn" ? "warn" : "enforce", maxEntries: 100000000, pruneAfter: "3650d" } } };

const AGENT = "main";
const SESS_DIR = path.join(STATE, "agents", AGENT, "sessions");
const STORE_PATH = path.join(SESS_DIR, "sessions.json");
const BIG_KEY = "agent:main:main";

// OpenClaw reads its config/state from these; point them at the temp state.
process.env.OPENCLAW_STATE_DIR = STATE;
process.env.OPENCLAW_CONFIG_PATH = path.join(STATE, "openclaw.json");
process.env.HOME = process.env.BENCH_HOME ?? STATE;

// ---------- locate real functions in the bundle ----------
const distFiles = fs.readdirSync(DIST).filter((f) => f.endsWith(".js") || f.endsWith(".mjs"));
function findChunk(defRegex) {
  const hits = [];
  for (const f of distFiles) {
    const p = path.join(DIST, f);
    const src = fs.readFileSync(p, "utf8");
    if (defRegex.test(src)) hits.push({ f, src });
  }
  return hits;
}
const chunkCache = new Map();
async function realFn(name) {
  const re = new RegExp(`(async )?function ${name}\\(`);
  const hits = findChunk(re).filter(({ src }) => new RegExp(`\\b${name} as [A-Za-z_$][\\w$]*`).test(src));
  if (hits.length === 0) throw new Error(`cannot find exported ${name} in ${DIST}`);
  const { f, src } = hits[0];
  const alias = new RegExp(`\\b${name} as ([A-Za-z_$][\\w$]*)`).exec(src)[1];
  if (!chunkCache.has(f)) chunkCache.set(f, await import(pathToFileURL(path.join(DIST, f)).href));
  const fn = chunkCache.get(f)[alias];
  if (typeof fn !== "function") throw new Error(`${name} alias ${alias} in ${f} is not a function`);
  return { fn, file: f, alias };
}

// ---------- synthetic data ----------
const CHANNELS = ["telegram", "whatsapp", "discord", "slack", "signal"];
function makeEntry(i, now) {
  const channel = CHANNELS[i % CHANNELS.length];
  const group = i % 3 === 0;
  const peer = `${100000000 + i}`;
  const key = group ? `agent:main:${channel}:group:g${i}` : `agent:main:${channel}:direct:${peer}`;
  const active = i < Math.floor(N * ACTIVE_FRACTION);
  const updatedAt = active ? now - (i % 3000) * 1000 : now - 2 * 3600_000 - i * 60_000;
  const sessionId = randomUUID();
  const entry = {
    sessionId,
    updatedAt,
    sessionStartedAt: updatedAt - 3600_000,
    lastInteractionAt: updatedAt,
    systemSent: true,
    abortedLastRun: false,
    chatType: group ? "group" : "direct",
    channel,
    lastChannel: channel,
    lastTo: group ? `group:g${i}` : peer,
    lastAccountId: "default",
    deliveryContext: { channel, to: group ? `group:g${i}` : peer, accountId: "default" },
    origin: { provider: channel, surface: channel, chatType: group ? "group" : "direct", from: `${channel}:${peer}`, to: `${channel}:bot`, accountId: "default", label: `User ${i}` },
    ...(group ? { displayName: `${channel}:g${i}`, subject: `Group ${i}` } : {}),
    modelProvider: "anthropic",
    model: "claude-sonnet-4-5",
    contextTokens: 200000,
    inputTokens: 1200 + i,
    outputTokens: 300 + (i % 500),
    totalTokens: 1500 + i,
    totalTokensFresh: true,
    thinkingLevel: "low",
    compactionCount: 0,
  };
  return { key, entry };
}
function transcriptLines(sessionId, count, t0) {
  const lines = [];
  lines.push(JSON.stringify({ type: "session", version: 3, id: sessionId, timestamp: new Date(t0).toISOString(), cwd: "/srv/workspace" }));
  let parent = null;
  const used = new Set(); // entry ids are unique within a transcript, as OpenClaw's own writer ensures
  for (let j = 0; j < count; j++) {
    let id = randomUUID().slice(0, 8);
    while (used.has(id)) id = randomUUID().slice(0, 8);
    used.add(id);
    const role = j % 2 === 0 ? "user" : "assistant";
    const ts = t0 + j * 1000;
    const text = role === "user" ? `user message ${j}: please summarise the thread about item ${j % 97} and reply briefly.` : `assistant reply ${j}: here is a short answer with some detail about item ${j % 97}, nothing more.`;
    const message = role === "user"
      ? { role, content: [{ type: "text", text }], timestamp: ts }
      : { role, content: [{ type: "text", text }], api: "anthropic-messages", provider: "anthropic", model: "claude-sonnet-4-5", usage: { input: 1000 + j, output: 40, cacheRead: 0, cacheWrite: 0, totalTokens: 1040 + j, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: ts };
    lines.push(JSON.stringify({ type: "message", id, parentId: parent, timestamp: new Date(ts).toISOString(), message }));
    parent = id;
  }
  return lines.join("\n") + "\n";
}
function generate() {
  const t = performance.now();
  fs.rmSync(STATE, { recursive: true, force: true });
  fs.mkdirSync(SESS_DIR, { recursive: true });
  fs.writeFileSync(path.join(STATE, "openclaw.json"), JSON.stringify(CONFIG, null, 2));
  const now = Date.now();
  const store = {};
  const keys = [];
  for (let i = 0; i < N; i++) {
    const { key, entry } = makeEntry(i, now);
    store[key] = entry;
    keys.push(key);
    if (WITH_TRANSCRIPTS) fs.writeFileSync(path.join(SESS_DIR, `${entry.sessionId}.jsonl`), transcriptLines(entry.sessionId, M, entry.updatedAt - M * 1000));
  }
  // the big session: main DM bucket with BIG messages
  const bigId = randomUUID();
  store[BIG_KEY] = { ...makeEntry(0, now).entry, sessionId: bigId, updatedAt: now, chatType: "direct" };
  fs.writeFileSync(path.join(SESS_DIR, `${bigId}.jsonl`), transcriptLines(bigId, BIG, now - BIG * 1000));
  // OpenClaw writes sessions.json with JSON.stringify(store, null, 2)
  fs.writeFileSync(STORE_PATH, JSON.stringify(store, null, 2));
  fs.writeFileSync(path.join(STATE, ".bench-meta.json"), JSON.stringify({ N, M, BIG, WITH_TRANSCRIPTS, ACTIVE_FRACTION, MAINT, bigId, generatedAt: now }));
  return { genSeconds: (performance.now() - t) / 1000 };
}

// ---------- helpers ----------
const rssMB = () => +(process.memoryUsage().rss / 1048576).toFixed(1);
const heapMB = () => +(process.memoryUsage().heapUsed / 1048576).toFixed(1);
function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, min: +s[0].toFixed(3), p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3), max: +s[s.length - 1].toFixed(3), mean: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3) };
}
async function timeIt(fn, reps = REPEAT) {
  const out = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return stats(out);
}
function du(p) {
  try { return Number(execFileSync("du", ["-sb", p]).toString().split(/\s+/)[0]); } catch { return null; }
}

// ---------- bench ----------
async function bench() {
  const meta = JSON.parse(fs.readFileSync(path.join(STATE, ".bench-meta.json"), "utf8"));
  const result = { openclawVersion: JSON.parse(fs.readFileSync(path.join(DIST, "..", "package.json"), "utf8")).version, node: process.version, N: meta.N, M: meta.M, BIG: meta.BIG, withTranscripts: meta.WITH_TRANSCRIPTS, maintenance: meta.MAINT, activeFraction: meta.ACTIVE_FRACTION, functions: {}, ms: {}, memMB: {}, disk: {} };
  result.memMB.rssBaselineBeforeImport = rssMB();

  const fns = {};
  for (const name of ["loadSessionStore", "loadCombinedSessionStoreForGateway", "listSessionsFromStoreAsync", "readRecentSessionMessagesAsync", "readSessionMessagesAsync", "updateSessionStoreEntry", "acquireSessionWriteLock", "clearSessionStoreCaches"]) {
    const r = await realFn(name);
    fns[name] = r.fn;
    result.functions[name] = `${r.file} (${r.alias})`;
  }
  result.memMB.rssAfterImport = rssMB();
  const cfg = JSON.parse(fs.readFileSync(path.join(STATE, "openclaw.json"), "utf8")); // single default agent "main", default store path
  const bigId = meta.bigId;
  const bigFile = path.join(SESS_DIR, `${bigId}.jsonl`);

  // (e) disk
  result.disk.sessionsJsonBytes = fs.statSync(STORE_PATH).size;
  result.disk.bigTranscriptBytes = fs.statSync(bigFile).size;
  result.disk.sessionsDirBytes = du(SESS_DIR);

  // (a) load + list
  // cold: parse sessions.json from disk (cache cleared before every rep)
  result.ms.loadStoreCold = await timeIt(() => { fns.clearSessionStoreCaches(); fns.loadSessionStore(STORE_PATH, { skipCache: true, clone: false }); });
  result.memMB.rssAfterColdLoads = rssMB();
  // gateway sessions.list core = loadCombinedSessionStoreForGateway + listSessionsFromStoreAsync
  const listOnce = async (opts, { cold }) => {
    if (cold) fns.clearSessionStoreCaches();
    const { storePath, store } = fns.loadCombinedSessionStoreForGateway(cfg, {});
    const r = await fns.listSessionsFromStoreAsync({ cfg, storePath, store, modelCatalog: undefined, opts });
    return r;
  };
  const probeAll = await listOnce({ limit: meta.N + 10 }, { cold: true });
  const probeActive = await listOnce({ activeMinutes: 60, limit: 200 }, { cold: true });
  const probeDefault = await listOnce({}, { cold: true });
  result.listCounts = { all: probeAll.count, allTotal: probeAll.totalCount, active60limit200: probeActive.count, active60Total: probeActive.totalCount, defaultLimit: probeDefault.count };
  result.ms.listAllCold = await timeIt(() => listOnce({ limit: meta.N + 10 }, { cold: true }));
  result.ms.listAllWarm = await timeIt(() => listOnce({ limit: meta.N + 10 }, { cold: false }));
  result.ms.listActive60Limit200Cold = await timeIt(() => listOnce({ activeMinutes: 60, limit: 200 }, { cold: true }));
  result.ms.listActive60Limit200Warm = await timeIt(() => listOnce({ activeMinutes: 60, limit: 200 }, { cold: false }));
  result.ms.listDefaultLimitWarm = await timeIt(() => listOnce({}, { cold: false }));
  result.memMB.rssAfterList = rssMB();
  result.memMB.heapAfterList = heapMB();

  // (b) history: last 50 messages of the BIG-message session, as chat.history reads it
  const histOpts = { maxMessages: 51, maxBytes: Math.max(6 * 1024 * 1024 * 2, 1024 * 1024) };
  const tail = await fns.readRecentSessionMessagesAsync(bigId, STORE_PATH, undefined, histOpts);
  result.historyTailCount = tail.length;
  result.ms.historyLast50Big = await timeIt(() => fns.readRecentSessionMessagesAsync(bigId, STORE_PATH, undefined, histOpts), Math.max(REPEAT, 20));
  // full-transcript materialisation (used by some non-tail readers) for contrast
  result.ms.historyFullReadBig = await timeIt(() => fns.readSessionMessagesAsync(bigId, STORE_PATH, undefined, {}), 3);
  const full = await fns.readSessionMessagesAsync(bigId, STORE_PATH, undefined, {});
  result.historyFullCount = full.length;
  result.memMB.rssAfterHistory = rssMB();

  // (c) updates: like a new message arriving -> bump updatedAt/token counters on one entry
  const { store: s0 } = fns.loadCombinedSessionStoreForGateway(cfg, {});
  const keys = Object.keys(s0).filter((k) => k !== BIG_KEY);
  const pick = (i) => keys[(i * 7919) % keys.length];
  const doUpdate = (i) => fns.updateSessionStoreEntry({ storePath: STORE_PATH, sessionKey: pick(i), update: (e) => ({ updatedAt: Date.now(), lastInteractionAt: Date.now(), inputTokens: (e.inputTokens ?? 0) + 100, totalTokens: (e.totalTokens ?? 0) + 140 }) });
  await doUpdate(0); // warm the writer cache
  result.ms.updateEntrySequential = await timeIt((i) => doUpdate(i + 1), UPDATES);
  for (const conc of [8, 64]) {
    const total = Math.max(UPDATES, conc);
    const lat = [];
    const t = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: conc }, async () => {
      while (next < total) {
        const i = next++;
        const t1 = performance.now();
        await doUpdate(1000 + i);
        lat.push(performance.now() - t1);
      }
    }));
    const wall = performance.now() - t;
    result.ms[`updateEntryConcurrent${conc}`] = { ...stats(lat), throughputPerSec: +(total / (wall / 1000)).toFixed(1) };
  }
  // new message end-to-end (no LLM): take transcript lock, append one JSONL line, release, bump entry
  const appendAndUpdate = async (i) => {
    const key = pick(i);
    const e = s0[key];
    const file = path.join(SESS_DIR, `${e.sessionId}.jsonl`);
    const lock = await fns.acquireSessionWriteLock({ sessionFile: file });
    try {
      await fs.promises.appendFile(file, JSON.stringify({ type: "message", id: randomUUID().slice(0, 8), parentId: null, timestamp: new Date().toISOString(), message: { role: "user", content: [{ type: "text", text: `bench ${i}` }], timestamp: Date.now() } }) + "\n");
    } finally {
      await lock.release();
    }
    await fns.updateSessionStoreEntry({ storePath: STORE_PATH, sessionKey: key, update: (x) => ({ updatedAt: Date.now(), totalTokens: (x.totalTokens ?? 0) + 10 }) });
  };
  if (meta.WITH_TRANSCRIPTS) {
    result.ms.appendMessagePlusUpdateSequential = await timeIt((i) => appendAndUpdate(5000 + i), UPDATES);
    const conc = 8, total = Math.max(UPDATES, 8), lat = [];
    const t = performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: conc }, async () => {
      while (next < total) { const i = next++; const t1 = performance.now(); await appendAndUpdate(9000 + i); lat.push(performance.now() - t1); }
    }));
    result.ms.appendMessagePlusUpdateConcurrent8 = { ...stats(lat), throughputPerSec: +(total / ((performance.now() - t) / 1000)).toFixed(1) };
  }
  result.memMB.rssAfterUpdates = rssMB();
  result.memMB.rssPeakMaxRss = +(process.resourceUsage().maxRSS / 1024).toFixed(1);
  result.disk.sessionsJsonBytesAfter = fs.statSync(STORE_PATH).size;
  result.storeEntriesAfter = Object.keys(JSON.parse(fs.readFileSync(STORE_PATH, "utf8"))).length;
  result.transcriptsArchivedByMaintenance = fs.readdirSync(SESS_DIR).filter((f) => f.includes(".jsonl.deleted.")).length;
  return result;
}

// ---------- main ----------
// Generation runs in a child process so the benchmark process's RSS reflects only OpenClaw's work.
let genSeconds = null;
const metaPath = path.join(STATE, ".bench-meta.json");
const metaOk = (() => { try { const m = JSON.parse(fs.readFileSync(metaPath, "utf8")); return m.N === N && m.M === M && m.BIG === BIG && m.WITH_TRANSCRIPTS === WITH_TRANSCRIPTS && m.MAINT === MAINT; } catch { return false; } })();
if (PHASE === "generate") { const g = generate(); console.log(JSON.stringify(g)); process.exit(0); }
if (PHASE === "all" && (!metaOk || args.regen === "true")) {
  const t = performance.now();
  execFileSync(process.execPath, [process.argv[1], ...process.argv.slice(2).filter((a, i, arr) => a !== "--phase" && arr[i - 1] !== "--phase"), "--phase", "generate"], { stdio: ["ignore", "ignore", "inherit"] });
  genSeconds = (performance.now() - t) / 1000;
}
const res = await bench();
if (genSeconds != null) res.generateSeconds = +genSeconds.toFixed(1);
const text = JSON.stringify(res, null, 2);
if (OUT) fs.writeFileSync(OUT, text + "\n");
console.log(text);
process.exit(0);
