// Drives OpenClaw's own Control UI (served by switchboard from the build in
// OpenClaw's npm package) in headless Chromium. Run by controlui_test.go:
//
//   node controlui.mjs <control ui url> <token> <session title> <seeded reply>
//
// It prints "ok - <step>" per step; "methods: …" and "unanswered: …" with
// the gateway methods the UI called and those switchboard refused as
// unknown; and on failure "not ok - <step>: <why>" with the page's text,
// then exits 1. CONTROLUI_DEBUG=1 also prints every request, response and
// agent or chat event on the UI's WebSocket, one "# …" line each.

// playwright-core is the browser tests' own (npm ci in internal/web/e2e).
const {chromium} = await import(new URL('../../internal/web/e2e/node_modules/playwright-core/index.mjs', import.meta.url));

const [url, token, title, seeded] = process.argv.slice(2);
const executablePath = process.env.SWITCHBOARD_CHROMIUM || '/usr/bin/chromium';
const TIMEOUT = 30000;
const reply = 'Streaming: one two three four five six seven eight nine ten.';

const browser = await chromium.launch({executablePath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run']});
const page = await browser.newPage({viewport: {width: 1360, height: 860}});
page.setDefaultTimeout(TIMEOUT);
const problems = [];
page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));

// Every request the UI sends on the gateway's WebSocket, and the methods
// switchboard answered "unknown method".
const called = new Set();
const unknown = new Set();
const pending = new Map();
let sockets = 0;
const sentTo = [];
// From the chat.send on: the chat.history requests the UI sent and those
// answered. The UI reloads the stored copies on the send's answer, while
// the reply streams and usually on the final, and may fold a reload in
// flight at the final into that one; so the page is judged once the
// final has arrived and every reload since the send is answered.
let sendSeen = false;
let finalSeen = false;
const reloads = {sent: new Set(), answered: 0};
// Waiters for that moment.
let waiters = [];
const settled = () => finalSeen && reloads.answered > 0 && reloads.sent.size === 0;
const check = () => { if (settled()) for (const w of waiters.splice(0)) w(); };
function quiet() {
  if (settled()) return Promise.resolve();
  let timer;
  return Promise.race([new Promise((resolve) => waiters.push(resolve)), new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the UI did not settle after the final (final ${finalSeen}, reloads answered ${reloads.answered}, pending ${reloads.sent.size})`)), TIMEOUT);
  })]).finally(() => clearTimeout(timer));
}
page.on('websocket', (ws) => {
  sockets++;
  ws.on('framesent', (f) => {
    try {
      const j = JSON.parse(f.payload);
      if (j.type === 'req') {
        called.add(j.method);
        if (j.method === 'chat.send') { sentTo.push(j.params?.sessionKey); sendSeen = true; }
        if (sendSeen && j.method === 'chat.history') reloads.sent.add(j.id);
        pending.set(j.id, j.method);
        if (process.env.CONTROLUI_DEBUG) console.log(`# req ${j.method} ${JSON.stringify(j.params).slice(0, 120)}`);
      }
    } catch {}
  });
  ws.on('framereceived', (f) => {
    try {
      const j = JSON.parse(f.payload);
      if (j.type === 'event' && j.event === 'chat' && j.payload?.state === 'final') { finalSeen = true; check(); }
      if (j.type === 'res' && reloads.sent.delete(j.id)) { reloads.answered++; check(); }
      if (j.type === 'res' && !j.ok && /^unknown method/.test(j.error?.message || '')) unknown.add(pending.get(j.id));
      if (process.env.CONTROLUI_DEBUG && j.type === 'event' && (j.event === 'chat' || j.event === 'agent')) console.log(`# ${j.event} ${j.payload?.state || j.payload?.stream} ${j.payload?.runId} ${JSON.stringify(j.payload?.message?.content || j.payload?.data || '').slice(0, 80)}`);
      if (process.env.CONTROLUI_DEBUG && j.type === 'res') console.log(`# res ${pending.get(j.id) || j.id} ${j.ok} ${JSON.stringify(j.payload || j.error).slice(0, 120)}`);
      if (j.type === 'res') pending.delete(j.id);
    } catch {}
  });
});

async function step(name, fn) {
  try {
    await fn();
  } catch (err) {
    console.log(`not ok - ${name}: ${err.message.split('\n')[0]}`);
    console.log(`# page text:\n${(await page.locator('body').innerText().catch(() => '')).slice(0, 3000)}`);
    if (problems.length) console.log(`# browser problems:\n${problems.join('\n')}`);
    await browser.close().catch(() => {});
    process.exit(1);
  }
  console.log(`ok - ${name}`);
}

await step('connects', async () => {
  await page.goto(`${url}#token=${encodeURIComponent(token)}`);
  await page.getByText('Connected', {exact: true}).first().waitFor();
  if (sockets < 1) throw new Error('no WebSocket was opened');
});

await step('lists sessions', async () => {
  await page.getByText(title, {exact: true}).first().waitFor();
});

await step('opens a transcript', async () => {
  await page.getByText(title, {exact: true}).first().click();
  await page.getByText(seeded, {exact: true}).first().waitFor();
});

await step('sends a chat and shows the streamed reply', async () => {
  // Record every text of the reply the page shows while it streams.
  await page.evaluate(() => {
    window.__seen = new Set();
    new MutationObserver(() => {
      // Any element whose text is the reply so far: the bubble of the
      // run the page started may hold its text with a cursor beside it.
      for (const el of document.querySelectorAll('main *')) {
        const t = (el.textContent || '').trim();
        if (t.startsWith('Streaming:')) window.__seen.add(t);
      }
    }).observe(document.body, {subtree: true, childList: true, characterData: true});
  });
  // The opened session's composer is the last one (the home pane keeps its own).
  const box = page.getByPlaceholder(/^Message /).last();
  await box.fill('stream please');
  await box.press('Enter');
  await page.getByText(reply, {exact: true}).first().waitFor();
  const seen = await page.evaluate(() => [...window.__seen]);
  if (!seen.some((t) => t !== reply && reply.startsWith(t))) {
    throw new Error(`the reply appeared whole, never in pieces (texts seen: ${JSON.stringify(seen)})`);
  }
});

await step('shows the sent message and the reply once, without "Sending message..."', async () => {
  // The UI reloads the history around the final; the stored copies must
  // replace its own, not join them. Judge the page once the final is in
  // and those reloads are answered, without reopening the pane.
  await quiet();
  // How many bubbles show each text (elements whose text is exactly it
  // and none of whose children's is), and how often the page says
  // "Sending message...".
  await page.evaluate(() => {
    const count = (text) => [...document.querySelectorAll('main *')].filter((el) =>
      (el.textContent || '').trim() === text && ![...el.children].some((c) => (c.textContent || '').trim() === text)).length;
    window.__shown = (sent, reply) => ({sent: count(sent), reply: count(reply),
      sending: document.body.innerText.split('Sending message...').length - 1});
  });
  const args = ['stream please', reply];
  try {
    await page.waitForFunction(([sent, reply]) => {
      const n = window.__shown(sent, reply);
      return n.sent === 1 && n.reply === 1 && n.sending === 0;
    }, args, {timeout: TIMEOUT});
  } catch (err) {
    const n = await page.evaluate(([sent, reply]) => window.__shown(sent, reply), args);
    throw new Error(`sent message shown ${n.sent}×, reply ${n.reply}×, "Sending message..." ${n.sending}× (${err.message.split('\n')[0]})`);
  }
  // A reload still under way could bring a second copy: judge again
  // once none is pending.
  await quiet();
  const n = await page.evaluate(([sent, reply]) => window.__shown(sent, reply), args);
  if (n.sent !== 1 || n.reply !== 1 || n.sending !== 0) {
    throw new Error(`after the last reload: sent message shown ${n.sent}×, reply ${n.reply}×, "Sending message..." ${n.sending}×`);
  }
});

await step('no page errors', async () => {
  if (problems.length) throw new Error(problems.join('; '));
});

console.log(`chat.send to: ${sentTo.join(' ')}`);
console.log(`methods: ${[...called].sort().join(' ')}`);
console.log(`unanswered: ${[...unknown].sort().join(' ')}`);
await browser.close();
