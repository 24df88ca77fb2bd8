// Tree: the spawn tree under a session — every sub-agent it spawned (and
// theirs), with status, label, runtime and tokens, and a cancel button on
// each node that is still running.

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
        r.model ? h('div', {}, h('dt', {text: 'Model'}), h('dd', {class: 'mono', text: r.model})) : null),
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
    } else if (event === 'agent' && payload.stream === 'lifecycle') {
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
