// Tree: the spawn tree under a session — every sub-agent it spawned (and
// theirs), with status, label, runtime, tokens (its own and its subtree's,
// against its budget), live progress of running nodes (the gateway's
// `agent` progress events, at most one a second per run), and a cancel
// button on each node that is still running.

import {h, clear, fmtNumber, fmtDuration, throttle, statusBadge, errorText, sessionHref} from '../dom.js';
import {sessionRow, childRows, sameSession} from '../data.js';

const MAX_DEPTH = 8;
const MAX_NODES = 2000;

export function mountTree(ctx, root, ref) {
  const {gw} = ctx;
  const key = gw.canonicalKey(ref);
  const abort = new AbortController();
  let seq = 0;
  let tree = null; // {row, key, children: [...]}
  let keys = new Set(); // every key in the tree, to match events
  let truncated = false;
  const progress = new Map(); // canonical key → latest progress record of its running run
  ctx.setTitle(`Tree · ${ref}`);

  const summary = h('p', {class: 'subtle', role: 'status', 'aria-live': 'polite'});
  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});
  const body = h('div', {class: 'tree-wrap'});
  clear(root);
  root.append(
    h('nav', {class: 'crumbs', 'aria-label': 'Breadcrumb'},
      h('a', {href: '#/sessions', text: 'Sessions'}), h('span', {'aria-hidden': 'true', text: ' / '}),
      h('a', {href: sessionHref(ref), text: ref}), h('span', {'aria-hidden': 'true', text: ' / '}), h('span', {text: 'Spawn tree'})),
    h('div', {class: 'view-head'}, h('div', {}, h('h1', {text: 'Spawn tree'}),
      h('p', {class: 'subtle'}, 'Sub-agents spawned under ', h('a', {href: sessionHref(ref), class: 'mono', text: key}), ', and theirs.'))),
    errorBox, summary, body);

  async function load() {
    const my = ++seq;
    try {
      const rootRow = await sessionRow(gw, key);
      const next = {key, row: rootRow || {key}, children: []};
      const seen = new Set([key]);
      let level = [next];
      let count = 0;
      let cut = false;
      for (let depth = 0; depth < MAX_DEPTH && level.length; depth++) {
        const lists = await Promise.all(level.map((n) => childRows(gw, n.key)));
        const nextLevel = [];
        level.forEach((n, i) => {
          for (const row of lists[i]) {
            const k = gw.canonicalKey(row.key);
            if (seen.has(k)) continue;
            if (count >= MAX_NODES) {
              cut = true;
              break;
            }
            seen.add(k);
            count++;
            const child = {key: k, row, children: []};
            n.children.push(child);
            nextLevel.push(child);
          }
        });
        level = nextLevel;
        if (depth === MAX_DEPTH - 1 && level.length) cut = true;
      }
      if (my !== seq) return;
      tree = next;
      keys = seen;
      truncated = cut;
      errorBox.hidden = true;
      render();
    } catch (err) {
      if (my !== seq) return;
      errorBox.hidden = false;
      errorBox.textContent = `Could not load the tree: ${errorText(err)}`;
    }
  }

  function render() {
    const focused = document.activeElement && body.contains(document.activeElement) ? document.activeElement.dataset.focusKey : '';
    clear(body);
    if (!tree) return;
    const n = keys.size - 1;
    const running = countRunning(tree);
    summary.textContent = n === 0 ? 'No sub-agents spawned from this session yet.'
      : `${n} sub-agent${n === 1 ? '' : 's'}${running ? `, ${running} running` : ''}${truncated ? ' (only part of a very large tree is shown)' : ''}.`;
    body.append(h('ul', {class: 'tree', 'aria-label': 'Spawn tree'}, node(tree, true)));
    if (focused) {
      const el = body.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`);
      if (el) el.focus({preventScroll: true});
    }
  }

  function node(n, isRoot) {
    const r = n.row || {};
    const name = r.label || r.displayName || (isRoot ? ref : n.key);
    const status = r.status || '';
    const isRunning = status === 'running';
    const runtime = isRunning && r.startedAt ? Date.now() - r.startedAt : r.runtimeMs;
    const cancelLabel = isRoot ? 'Stop' : 'Cancel';
    const btn = h('button', {type: 'button', class: `btn btn-small${isRoot ? '' : ' btn-danger'}`,
      'aria-label': `${cancelLabel} ${name}`, dataset: {focusKey: `cancel:${n.key}`},
      disabled: !isRoot && !isRunning,
      title: !isRoot && !isRunning ? 'Not running' : undefined,
      onclick: () => cancel(n, name, btn)}, cancelLabel);
    const card = h('div', {class: `node-card${isRoot ? ' node-root' : ''}`, dataset: {key: n.key, status: status || 'idle'}},
      h('div', {class: 'node-main'},
        status ? statusBadge(status) : (isRoot ? h('span', {class: 'badge', text: 'root'}) : statusBadge('')),
        h('div', {class: 'node-names'},
          h('a', {href: sessionHref(n.key), class: 'node-label', text: name}),
          name !== n.key ? h('span', {class: 'key mono', text: n.key}) : null)),
      h('dl', {class: 'node-meta'},
        h('div', {}, h('dt', {text: 'Runtime'}), h('dd', {class: 'runtime', text: runtime ? fmtDuration(runtime) : '—'})),
        h('div', {}, h('dt', {text: 'Tokens'}), h('dd', {text: fmtNumber(r.totalTokens || 0)})),
        h('div', {}, h('dt', {text: 'Tree'}), h('dd', {class: 'tree-usage', text: treeUsageText(r)})),
        r.model ? h('div', {}, h('dt', {text: 'Model'}), h('dd', {class: 'mono', text: r.model})) : null),
      h('p', {class: 'node-progress subtle', role: 'status', hidden: !(progress.get(n.key) || (isRunning && r.progress)),
        text: progressText(progress.get(n.key) || (isRunning ? r.progress : null))}),
      h('div', {class: 'node-actions'}, btn));
    return h('li', {class: 'tree-node'}, card,
      n.children.length ? h('ul', {}, n.children.map((c) => node(c, false))) : null);
  }

  async function cancel(n, name, btn) {
    btn.disabled = true;
    try {
      const res = await gw.call('chat.abort', {sessionKey: n.key});
      const count = res && (Array.isArray(res.runIds) ? res.runIds.length : res.aborted ? 1 : 0);
      ctx.toast(count ? `Cancelled ${name}.` : `${name} was not running.`);
    } catch (err) {
      ctx.toast(`Cancel failed: ${errorText(err)}`, 'error');
    }
    refresh();
  }

  const refresh = throttle(load, 500);
  gw.addEventListener('event', (ev) => {
    const {event, payload} = ev.detail;
    if (event === 'sessions.changed' || (event === 'chat' && payload.state !== 'delta')) {
      // A new child is not in the tree yet, so any change may matter.
      refresh();
    } else if (event === 'agent' && payload.stream === 'progress' && payload.sessionKey) {
      const k = gw.canonicalKey(payload.sessionKey);
      if (!keys.has(k)) return;
      progress.set(k, payload.data || {});
      showProgress(k);
    } else if (event === 'agent' && payload.stream === 'lifecycle') {
      if (payload.sessionKey && payload.data && payload.data.phase !== 'start') {
        progress.delete(gw.canonicalKey(payload.sessionKey));
      }
      if (!payload.sessionKey || keys.has(gw.canonicalKey(payload.sessionKey)) || sameSession(gw, payload.sessionKey, key)) refresh();
    }
  }, {signal: abort.signal});
  gw.addEventListener('open', () => load(), {signal: abort.signal});
  // Running nodes show a live runtime.
  const tick = setInterval(() => {
    if (tree && countRunning(tree)) {
      for (const el of body.querySelectorAll('.node-card[data-status="running"]')) {
        const n = find(tree, el.dataset.key);
        if (n && n.row.startedAt) el.querySelector('.runtime').textContent = fmtDuration(Date.now() - n.row.startedAt);
      }
    }
  }, 1000);

  // showProgress updates one node's progress line in place.
  function showProgress(k) {
    const card = body.querySelector(`.node-card[data-key="${CSS.escape(k)}"]`);
    const el = card && card.querySelector('.node-progress');
    if (!el) return;
    const p = progress.get(k);
    el.hidden = !p;
    el.textContent = progressText(p);
  }

  load();
  return {
    unmount() {
      abort.abort();
      refresh.cancel();
      clearInterval(tick);
      seq++;
    },
  };
}

function countRunning(n) {
  return (n.row && n.row.status === 'running' ? 1 : 0) + n.children.reduce((s, c) => s + countRunning(c), 0);
}

function find(n, key) {
  if (n.key === key) return n;
  for (const c of n.children) {
    const f = find(c, key);
    if (f) return f;
  }
  return null;
}

// treeUsageText is a node's subtree usage: tokens (and cost), against its
// budget when it has one.
function treeUsageText(r) {
  const t = r.usage && r.usage.tree;
  const tokens = t ? (t.inputTokens || 0) + (t.outputTokens || 0) : 0;
  let s = fmtNumber(tokens);
  if (r.budget && r.budget.tokens) s += ` / ${fmtNumber(r.budget.tokens)}`;
  if (t && t.costUsd) s += ` · $${t.costUsd.toFixed(4)}`;
  return s;
}

// progressText is a running node's progress in one line: step, phase,
// last tool and its outcome, tokens so far and the end of its text.
function progressText(p) {
  if (!p) return '';
  const parts = [`step ${p.step || 0}`, p.phase || 'waiting'];
  if (p.lastTool) parts.push(`last ${p.lastTool} ${p.lastToolOutcome || ''}`.trim());
  parts.push(`${fmtNumber(p.tokens || 0)} tokens`);
  if (p.text) parts.push(`“${p.text.length > 80 ? '…' + p.text.slice(-80) : p.text}”`);
  return parts.join(' · ');
}
