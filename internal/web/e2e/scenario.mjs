// End-to-end scenario of switchboard's web UI in a real headless Chromium.
// Run by internal/web/e2e_test.go against a real gateway:
//
//   node scenario.mjs <gateway url> <token> <screenshots dir> [empty]
//
// With "empty" it runs the first-screen steps instead, against a gateway
// whose state holds no session.
//
// The test passes a temp dir as <screenshots dir> and copies the pictures
// into docs/screenshots only when SWITCHBOARD_UPDATE_SCREENSHOTS=1.
//
// It prints "ok - <step>" for each step, and on the first failure prints
// "not ok - <step>: <why>" with the page's text and a screenshot path (in
// the system temp dir), and exits 1.

import {chromium} from 'playwright-core';
import {mkdtemp, rm, stat} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';

const [url, token, shots, mode] = process.argv.slice(2);
if (!url || !token || !shots) {
  console.error('usage: node scenario.mjs <gateway url> <token> <screenshots dir>');
  process.exit(2);
}
const executablePath = process.env.SWITCHBOARD_CHROMIUM || '/usr/bin/chromium';
const TIMEOUT = 20000;

const userDataDir = await mkdtemp(join(tmpdir(), 'switchboard-e2e-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--no-first-run', '--disable-sync', '--disable-quic'],
  viewport: {width: 1360, height: 860},
  deviceScaleFactor: 1,
  colorScheme: 'light',
  reducedMotion: 'reduce',
});
context.setDefaultTimeout(TIMEOUT);
const page = context.pages()[0] || (await context.newPage());
const problems = [];
page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
page.on('console', (msg) => {
  if (msg.type() === 'error') problems.push(`console error: ${msg.text()}`);
});
page.on('dialog', (d) => d.accept());

function fail(message) {
  throw new Error(message);
}

async function step(name, fn) {
  try {
    await fn();
  } catch (err) {
    console.log(`not ok - ${name}: ${err.message}`);
    const shot = join(userDataDir, '..', `switchboard-e2e-failure-${Date.now()}.png`);
    await page.screenshot({path: shot, fullPage: true}).catch(() => {});
    console.log(`# failure screenshot: ${shot}`);
    console.log(`# page text:\n${(await page.locator('body').innerText().catch(() => '')).slice(0, 3000)}`);
    if (problems.length) console.log(`# browser problems:\n${problems.join('\n')}`);
    await context.close().catch(() => {});
    process.exit(1);
  }
  console.log(`ok - ${name}`);
}

const go = (hash) => page.evaluate((h) => (location.hash = h), hash);

// unlabelled lists form controls a screen reader could not name.
const unlabelled = () => page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.offsetParent !== null)
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !(el.textContent || '').trim())
  .map((el) => el.outerHTML.slice(0, 120)));

// shot saves a screenshot meant for docs/ (no focus ring, no hover, no toasts).
async function shot(name) {
  await page.evaluate(() => {
    if (document.activeElement) document.activeElement.blur();
    document.querySelectorAll('.toast').forEach((t) => t.remove());
  });
  await page.mouse.move(1355, 855);
  await page.screenshot({path: join(shots, `${name}.png`)});
}

async function send(text) {
  const input = page.locator('#chat-input');
  await input.fill(text);
  await input.press('Enter');
}

if (mode === 'empty') {
  await step('first screen says what to do next', async () => {
    await page.goto(url);
    await page.locator('#token-input').fill(token);
    await page.locator('#token-input').press('Enter');
    await page.locator('h1', {hasText: 'Sessions'}).waitFor();
    const start = page.locator('.empty-start');
    await start.waitFor();
    const text = await start.innerText();
    for (const want of ['No sessions yet', 'Start a chat with main', 'switchboard demo', 'channel']) {
      if (!text.includes(want)) fail(`the first screen lacks ${JSON.stringify(want)}:\n${text}`);
    }
    if (text.includes('match these filters')) fail(`the first screen speaks of filters with none set:\n${text}`);
  });
  await step('a filter that matches nothing says so', async () => {
    await page.locator('#f-search').fill('no-such-session');
    await page.locator('td.empty', {hasText: 'No sessions match these filters.'}).waitFor();
    if (await page.locator('.empty-start').count()) fail('the first-screen help shows with a filter set');
    await page.locator('#f-search').fill('');
    await page.locator('.empty-start').waitFor();
  });
  await step('the first screen starts a chat', async () => {
    await page.getByRole('link', {name: 'Start a chat with main'}).click();
    await page.locator('#chat-input').waitFor();
    await send('hello');
    await page.locator('.msg-assistant', {hasText: 'Hello! I am the main agent'}).waitFor();
    await go('#/sessions');
    await page.locator('table.vtable tbody tr.row', {hasText: 'main'}).waitFor();
    if (await page.locator('.empty-start').count()) fail('the first-screen help still shows beside a session');
  });
  const real = problems.filter((p) => !/WebSocket/.test(p));
  if (real.length) {
    console.log(`not ok - browser problems:\n${real.join('\n')}`);
    await context.close();
    process.exit(1);
  }
  await context.close();
  await rm(userDataDir, {recursive: true, force: true}).catch(() => {});
  process.exit(0);
}

await step('token prompt hides everything', async () => {
  await page.goto(url);
  await page.locator('#token-dialog[open]').waitFor();
  if (await page.locator('#main .view').count()) fail('a view is shown without a token');
  const conn = await page.locator('#conn').innerText();
  if (!/token/i.test(conn)) fail(`connection status says ${JSON.stringify(conn)}, want "Token needed"`);
  if (!(await page.locator('label[for="token-input"]').count())) fail('token field has no label');
});

await step('wrong token refused', async () => {
  await page.locator('#token-input').fill('not-the-token');
  await page.locator('#token-input').press('Enter');
  await page.locator('#token-error', {hasText: 'not accepted'}).waitFor();
  if (!(await page.locator('#token-dialog[open]').count())) fail('dialog closed after a wrong token');
  if (await page.locator('#main .view').count()) fail('a view is shown with a wrong token');
});

await step('sessions list', async () => {
  await page.locator('#token-input').fill(token);
  await page.locator('#token-input').press('Enter');
  await page.locator('h1', {hasText: 'Sessions'}).waitFor();
  const kept = await page.evaluate(() => sessionStorage.getItem('switchboard.token'));
  if (kept !== token) fail('token not kept in sessionStorage');
  // A reload reuses the token without asking again.
  await page.reload();
  await page.locator('table.vtable a', {hasText: '#eng-standup'}).waitFor();
  if (await page.locator('#token-dialog[open]').count()) fail('token asked again after a reload');
  const heads = await page.locator('table.vtable thead th').allInnerTexts();
  for (const want of ['SESSION', 'KIND', 'CHANNEL', 'MODEL', 'TOKENS', 'UPDATED', 'STATUS', 'SEND POLICY']) {
    if (!heads.some((h) => h.toUpperCase().includes(want))) fail(`no ${want} column (have ${heads.join(', ')})`);
  }
  const bad = await unlabelled();
  if (bad.length) fail(`controls without a label: ${bad.join(' | ')}`);
  // Kind filter runs on the server.
  await page.locator('#f-kind-cron').check();
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('table.vtable tbody tr.row')];
    return rows.length === 1 && rows[0].innerText.includes('nightly report');
  });
  await page.locator('#f-kind-cron').uncheck();
});

await step('windowed rendering', async () => {
  const summary = page.locator('.table-summary');
  await page.locator('.table-summary', {hasText: '200 sessions loaded'}).waitFor();
  const rendered = await page.locator('table.vtable tbody tr.row').count();
  if (rendered === 0 || rendered > 60) fail(`${rendered} rows in the DOM for 200 loaded; want only the visible window`);
  await page.getByRole('button', {name: 'Load 200 more'}).click();
  await page.locator('.table-summary', {hasText: '400 sessions loaded'}).waitFor();
  await page.locator('.vtable-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await page.locator('table.vtable tbody tr.row', {hasText: 'bulk import 00393'}).waitFor();
  const after = await page.locator('table.vtable tbody tr.row').count();
  if (after > 60) fail(`${after} rows in the DOM after scrolling 400 rows`);
  await page.locator('.vtable-scroll').evaluate((el) => (el.scrollTop = 0));
  void summary;
});

await step('server-side search', async () => {
  await page.locator('#f-search').fill('bulk-09999');
  await page.waitForFunction(() => {
    const rows = [...document.querySelectorAll('table.vtable tbody tr.row')];
    return rows.length === 1 && rows[0].innerText.includes('bulk import 09999');
  });
  await page.locator('#f-search').fill('');
  await page.locator('table.vtable a', {hasText: '#eng-standup'}).waitFor();
});

await step('chat reply live', async () => {
  await go('#/session/main');
  await page.locator('#chat-input').waitFor();
  await page.evaluate(() => (window.__sameDocument = true));
  await send('hello');
  await page.locator('.msg-assistant', {hasText: 'Hello! I am the main agent'}).waitFor();
  await page.locator('.msg-user', {hasText: 'hello'}).waitFor();
  if (!(await page.evaluate(() => window.__sameDocument))) fail('the page reloaded to show the reply');
  // The header shows the session's row once it exists.
  await page.locator('.chip', {hasText: 'Channel'}).locator('dd', {hasText: 'webchat'}).waitFor();
  const bad = await unlabelled();
  if (bad.length) fail(`controls without a label: ${bad.join(' | ')}`);
});

await step('streamed reply shows partial text', async () => {
  const full = 'Streaming: one two three four five six seven eight nine ten eleven twelve.';
  await send('stream please');
  const live = page.locator('.msg-streaming');
  await live.waitFor();
  await page.waitForFunction(() => {
    const el = document.querySelector('.msg-streaming .msg-body');
    return el && el.textContent.length > 0;
  });
  const partial = await live.locator('.msg-body').innerText();
  if (!full.startsWith(partial) || partial.length >= full.length) {
    fail(`while streaming the page shows ${JSON.stringify(partial)}; want a proper prefix of the reply`);
  }
  await page.locator('.msg-assistant:not(.msg-streaming)', {hasText: full}).waitFor();
  await page.waitForFunction(() => !document.querySelector('.msg-streaming'));
  if (await page.locator('.msg-assistant', {hasText: full}).count() !== 1) fail('the reply shows more than once after it ended');
});

await step('announce in transcript', async () => {
  await send('spawn market research');
  const call = page.locator('details.fold-call[data-tool="sessions_spawn"]').first();
  await call.waitFor();
  await call.locator('summary').click();
  await call.locator('pre', {hasText: '"task": "market research"'}).waitFor();
  await page.locator('details.fold-result[data-tool="sessions_spawn"]').first().waitFor();
  const announce = page.locator('.msg-announce', {hasText: 'Sub-agent finished: market research'});
  await announce.waitFor();
  const text = await announce.innerText();
  if (!text.includes('Status: ok')) fail(`announce without Status: ok:\n${text}`);
  if (!text.includes('Found 3 competitor reports')) fail(`announce without the child's result:\n${text}`);
  if (!/from\s+agent:main:subagent:/.test(text)) fail(`announce does not say which session it came from:\n${text}`);
  await page.locator('.msg-assistant', {hasText: 'has reported back'}).waitFor();
});

await step('spawn child in tree', async () => {
  await page.getByRole('link', {name: 'Spawn tree'}).click();
  await page.locator('h1', {hasText: 'Spawn tree'}).waitFor();
  const node = page.locator('.node-card', {hasText: 'market research'});
  await node.locator('.badge', {hasText: 'done'}).waitFor();
  if (!(await node.locator('dt', {hasText: 'Runtime'}).count())) fail('tree node has no runtime');
  if (!(await node.locator('dt', {hasText: 'Tokens'}).count())) fail('tree node has no tokens');
  // Usage rolls up the tree: the root's tree tokens include the child's.
  await node.locator('.tree-usage', {hasText: /[1-9]/}).waitFor();
  const rootTree = await page.locator('.node-card.node-root .tree-usage').innerText();
  const childTree = await node.locator('.tree-usage').innerText();
  const num = (s) => Number(s.split('/')[0].replace(/[^0-9]/g, ''));
  if (!(num(rootTree) > num(childTree))) fail(`root tree usage ${rootTree} is not above its child's ${childTree}`);
  if (!(await node.getByRole('button', {name: 'Cancel market research'}).isDisabled())) fail('cancel enabled on a finished child');
  // The child's transcript opens from the tree and shows the task as an inter-session message.
  await node.locator('a.node-label').click();
  await page.locator('.msg', {hasText: 'market research'}).first().waitFor();
  await page.goBack();
  await page.locator('h1', {hasText: 'Spawn tree'}).waitFor();
  // The sessions table shows each row's tree usage.
  await go('#/sessions');
  await page.locator('th', {hasText: 'Tree tokens'}).waitFor();
  await page.locator('table.vtable .tree-tokens', {hasText: /[1-9]/}).first().waitFor();
});

await step('cancel slow child', async () => {
  await go('#/session/main');
  await page.locator('#chat-input').waitFor();
  await send('spawn slow data crawl');
  await page.locator('.msg-assistant', {hasText: 'On it'}).nth(1).waitFor();
  await go('#/tree/main');
  const node = page.locator('.node-card', {hasText: 'slow data crawl'});
  await node.locator('.badge', {hasText: 'running'}).waitFor();
  await page.locator('.node-card', {hasText: 'slow data crawl'}).locator('.runtime', {hasText: /\d/}).waitFor();
  // A running child shows what it is doing: its first model call.
  await node.locator('.node-progress', {hasText: 'step 1 · model'}).waitFor();
  await shot('tree');
  await node.getByRole('button', {name: 'Cancel slow data crawl'}).click();
  await node.locator('.badge', {hasText: 'killed'}).waitFor();
  await go('#/session/main');
  const announce = page.locator('.msg-announce', {hasText: 'Sub-agent finished: slow data crawl'});
  await announce.waitFor();
  const text = await announce.innerText();
  if (!text.includes('Status: cancelled')) fail(`announce of the cancelled child:\n${text}`);
});

await step('cancel from runs page', async () => {
  await go('#/session/main');
  await page.locator('#chat-input').waitFor();
  await send('spawn slow backup job');
  await page.locator('.msg-assistant', {hasText: 'On it'}).nth(2).waitFor();
  await go('#/runs');
  const active = page.locator('section[aria-labelledby="runs-active"] tbody tr[data-status="running"]');
  await active.filter({hasText: 'subagent'}).first().waitFor();
  const runId = await active.filter({hasText: 'subagent'}).first().getAttribute('data-run-id');
  await active.filter({hasText: 'subagent'}).first().getByRole('button', {name: /^Cancel run/}).click();
  await page.locator(`section[aria-labelledby="runs-recent"] tbody tr[data-run-id="${runId}"][data-status="cancelled"]`).waitFor();
  await page.locator(`section[aria-labelledby="runs-active"] tbody tr[data-run-id="${runId}"]`).waitFor({state: 'detached'});
});

await step('stop and reset', async () => {
  await go('#/session/scratchpad');
  await page.locator('#chat-input').waitFor();
  await send('hello');
  await page.locator('.msg-assistant', {hasText: 'Hello!'}).waitFor();
  await send('think slowly about it');
  await page.locator('.working').waitFor();
  await page.getByRole('button', {name: 'Stop'}).click();
  await page.locator('.toast', {hasText: 'Stopped 1 run'}).waitFor();
  await page.locator('.working').waitFor({state: 'hidden'});
  await page.getByRole('button', {name: 'Reset…'}).click(); // the confirm dialog is accepted
  await page.locator('.toast', {hasText: 'Session reset'}).waitFor();
  await page.locator('.transcript .empty', {hasText: 'No messages yet'}).waitFor();
  if (await page.locator('.transcript-list .msg').count()) fail('messages still shown after a reset');
});

await step('send policy deny', async () => {
  await go('#/session/main');
  await page.locator('.chip', {hasText: 'Send policy'}).locator('dd', {hasText: 'inherit'}).waitFor();
  await page.locator('#s-policy').selectOption('deny');
  await page.locator('.chip', {hasText: 'Send policy'}).locator('dd', {hasText: 'deny'}).waitFor();
  const before = await page.locator('.transcript-list .msg-user').count();
  await send('are you still there?');
  const notice = page.locator('#chat-notice');
  await notice.filter({hasText: 'send blocked by session policy'}).waitFor();
  if (!(await notice.isVisible())) fail('refusal notice is not visible');
  if ((await page.locator('#chat-input').inputValue()) !== 'are you still there?') fail('the refused message was cleared from the box');
  if (await page.locator('.msg-pending').count()) fail('a refused message is shown as pending');
  const after = await page.locator('.transcript-list .msg-user').count();
  if (after !== before) fail('a refused message reached the transcript');
});

await step('runs page', async () => {
  await go('#/runs');
  await page.locator('h1', {hasText: 'Runs'}).waitFor();
  await page.locator('#runs-recent').waitFor();
  await page.locator('table tbody tr[data-status="cancelled"]').first().waitFor();
  await page.locator('table tbody tr[data-status="ok"]').first().waitFor();
  const kinds = await page.locator('table tbody tr td:nth-child(3)').allInnerTexts();
  for (const k of ['chat', 'subagent', 'inbound']) {
    if (!kinds.includes(k)) fail(`no ${k} run listed (kinds: ${[...new Set(kinds)].join(', ')})`);
  }
});

await step('message search', async () => {
  await go('#/search');
  await page.locator('h1', {hasText: 'Search'}).waitFor();
  const bad = await unlabelled();
  if (bad.length) fail(`controls without a label: ${bad.join(' | ')}`);
  await page.locator('#search-input').fill('market research');
  await page.locator('#search-input').press('Enter');
  const hit = page.locator('.search-hit', {hasText: 'spawn market research'}).first();
  await hit.waitFor();
  if (!(await page.evaluate(() => location.hash.includes('q=market')))) fail('the query is not in the URL');
  const link = hit.locator('a');
  if (!/^#\/session\//.test(await link.getAttribute('href'))) fail('a hit does not link to its session');
  await page.locator('#search-input').fill('zzzz-no-such-word');
  await page.locator('#search-input').press('Enter');
  await page.locator('[role=status]', {hasText: 'No matches.'}).waitFor();
  if (await page.locator('.search-hit').count()) fail('hits remain after a search that matches nothing');
  // Opening a hit shows its session.
  await page.locator('#search-input').fill('market research');
  await page.locator('#search-input').press('Enter');
  await page.locator('.search-hit a').first().click();
  await page.locator('#chat-input').waitFor();
});

await step('screenshots', async () => {
  await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));

  await go('#/sessions');
  await page.locator('table.vtable a', {hasText: '#eng-standup'}).waitFor();
  await shot('sessions');

  await go('#/session/main');
  await page.locator('.chip', {hasText: 'Send policy'}).locator('dd', {hasText: 'deny'}).waitFor();
  await page.locator('.msg-announce').first().waitFor();
  await page.locator('.msg-assistant', {hasText: 'has reported back'}).first().waitFor();
  await page.locator('details.fold-call').first().evaluate((d) => (d.open = true));
  await send('one more question');
  await page.locator('#chat-notice').filter({hasText: 'send blocked'}).waitFor();
  await page.evaluate(() => document.querySelectorAll('.toast').forEach((t) => t.remove()));
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({width: 1360, height: Math.min(2400, height)});
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('session');
  await page.setViewportSize({width: 1360, height: 860});

  await go('#/runs');
  await page.locator('table tbody tr[data-status="cancelled"]').first().waitFor();
  await shot('runs');

  await page.emulateMedia({colorScheme: 'dark'});
  await go('#/session/main');
  await page.locator('.chip', {hasText: 'Send policy'}).waitFor();
  await page.locator('.msg-announce').first().waitFor();
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('session-dark');
  await page.emulateMedia({colorScheme: 'light'});

  for (const name of ['sessions', 'session', 'tree', 'runs', 'session-dark']) {
    const s = await stat(join(shots, `${name}.png`));
    if (s.size < 10000) fail(`${name}.png is only ${s.size} bytes`);
  }
  const real = problems.filter((p) => !/status of 401|WebSocket/.test(p));
  if (real.length) fail(`the browser reported problems:\n${real.join('\n')}`);
});

await context.close();
await rm(userDataDir, {recursive: true, force: true});
console.log('PASS');
