// The web UI's Approvals view in a real headless Chromium. Run by
// approvals_e2e_test.go against a real gateway where two agent-to-agent
// sends are held by an approvals rule:
//
//   node approvals.mjs <gateway url> <token> <message to allow> <message to deny> <allowed target session>
//
// It prints "ok - <step>" per step; on the first failure "not ok - <step>:
// <why>" with the page's text, then exits 1.

import {chromium} from 'playwright-core';

const [url, token, allowMsg, denyMsg, target] = process.argv.slice(2);
if (!url || !token || !allowMsg || !denyMsg || !target) {
  console.error('usage: node approvals.mjs <gateway url> <token> <message to allow> <message to deny> <allowed target session>');
  process.exit(2);
}
const executablePath = process.env.SWITCHBOARD_CHROMIUM || '/usr/bin/chromium';

const browser = await chromium.launch({executablePath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run']});
const page = await browser.newPage({viewport: {width: 1360, height: 860}});
page.setDefaultTimeout(30000);
const problems = [];
page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));

async function step(name, fn) {
  try {
    await fn();
  } catch (err) {
    console.log(`not ok - ${name}: ${err.message}`);
    console.log(`# page text:\n${(await page.locator('body').innerText().catch(() => '')).slice(0, 3000)}`);
    if (problems.length) console.log(`# browser problems:\n${problems.join('\n')}`);
    await browser.close().catch(() => {});
    process.exit(1);
  }
  console.log(`ok - ${name}`);
}

const pendingRow = (text) => page.locator('section[aria-labelledby="approvals-pending"] tbody tr[data-approval-id]', {hasText: text});
const decidedRow = (text) => page.locator('section[aria-labelledby="approvals-decided"] tbody tr[data-approval-id]', {hasText: text});

await step('pending approvals listed', async () => {
  await page.goto(`${url}#/approvals`);
  await page.locator('#token-input').fill(token);
  await page.locator('#token-input').press('Enter');
  await page.locator('h1', {hasText: 'Approvals'}).waitFor();
  await pendingRow(allowMsg).waitFor();
  await pendingRow(denyMsg).waitFor();
  const count = await page.locator('#approvals-pending .count').innerText();
  if (count !== '(2)') throw new Error(`pending count says ${count}, want (2)`);
  for (const row of [pendingRow(allowMsg), pendingRow(denyMsg)]) {
    if ((await row.getAttribute('data-status')) !== 'pending') throw new Error('a held send is not pending');
    if (!(await row.innerText()).includes('agent:main:alice')) throw new Error('the row does not name the requester');
  }
});

await step('allow once', async () => {
  const id = await pendingRow(allowMsg).getAttribute('data-approval-id');
  await page.getByRole('button', {name: `Approve ${id}`, exact: true}).click();
  await decidedRow(allowMsg).and(page.locator('[data-status="allowed"]')).waitFor();
  if ((await decidedRow(allowMsg).innerText()).indexOf('allow-once') < 0) throw new Error('the decided row does not say allow-once');
  await pendingRow(allowMsg).waitFor({state: 'detached'});
});

await step('deny', async () => {
  const id = await pendingRow(denyMsg).getAttribute('data-approval-id');
  await page.getByRole('button', {name: `Deny ${id}`, exact: true}).click();
  await decidedRow(denyMsg).and(page.locator('[data-status="denied"]')).waitFor();
  await pendingRow(denyMsg).waitFor({state: 'detached'});
  await page.locator('td.empty', {hasText: 'Nothing waits for a decision.'}).waitFor();
});

await step('allowed send reached its target', async () => {
  await page.evaluate((h) => (location.hash = h), `#/session/${encodeURIComponent(target)}`);
  await page.locator('.msg-user', {hasText: allowMsg}).first().waitFor();
  await page.locator('.msg', {hasText: `echo: ${allowMsg}`}).first().waitFor();
  if (await page.locator('.msg', {hasText: denyMsg}).count()) throw new Error('the denied message shows in the allowed target');
});

const real = problems.filter((p) => !/WebSocket/.test(p));
await browser.close();
if (real.length) {
  console.log(`not ok - browser problems:\n${real.join('\n')}`);
  process.exit(1);
}
console.log('PASS');
