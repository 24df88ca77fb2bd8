// Sessions: the sessions_list view. Filters and paging run on the server
// (limit, search, kinds, activeMinutes, agent); sorting other than by
// recency orders the rows already loaded. Updates live from
// sessions.changed and chat events.

import {h, clear, fmtNumber, fmtRelative, fmtISO, throttle, debounce, statusBadge, errorText, sessionHref} from '../dom.js';
import {VirtualTable} from '../vtable.js';

const PAGE = 200;
const KINDS = ['main', 'group', 'cron', 'hook', 'node', 'other'];
const ROW_HEIGHT = 48;

const sorters = {
  name: (r) => (r.displayName || r.label || r.key || '').toLowerCase(),
  kind: (r) => r.kind || '',
  channel: (r) => r.channel || '',
  model: (r) => r.model || '',
  tokens: (r) => r.totalTokens || 0,
  tree: (r) => treeTokens(r),
  updated: (r) => r.updatedAt || 0,
  status: (r) => r.status || '',
  sendPolicy: (r) => r.sendPolicy || 'inherit',
};

export function mountSessions(ctx, root) {
  const {gw} = ctx;
  ctx.setTitle('Sessions');
  const saved = ctx.memory.get('sessions') || {};
  const state = {
    search: saved.search || '',
    kinds: new Set(saved.kinds || []),
    activeMinutes: saved.activeMinutes || '',
    agent: saved.agent || '',
    limit: saved.limit || PAGE,
    sort: saved.sort || {id: 'updated', dir: 'desc'},
    rows: [],
    more: false,
    loading: false,
    error: '',
  };
  const abort = new AbortController();
  let seq = 0;

  const remember = () => ctx.memory.set('sessions', {
    search: state.search, kinds: [...state.kinds], activeMinutes: state.activeMinutes,
    agent: state.agent, limit: state.limit, sort: state.sort,
  });

  // --- filters ---
  const search = h('input', {id: 'f-search', type: 'search', value: state.search, placeholder: 'Key, label or name',
    autocomplete: 'off', spellcheck: 'false'});
  const active = h('input', {id: 'f-active', type: 'number', min: '1', step: '1', inputmode: 'numeric',
    placeholder: 'Any time', value: state.activeMinutes});
  const agent = h('select', {id: 'f-agent'}, h('option', {value: '', text: 'All agents'}));
  const kindBoxes = KINDS.map((k) => {
    const box = h('input', {type: 'checkbox', id: `f-kind-${k}`, value: k, checked: state.kinds.has(k)});
    box.addEventListener('change', () => {
      if (box.checked) state.kinds.add(k);
      else state.kinds.delete(k);
      refilter();
    });
    return h('label', {class: 'check', for: `f-kind-${k}`}, box, k);
  });
  const refilter = () => {
    state.limit = PAGE;
    remember();
    table.el.scrollTop = 0;
    load();
  };
  const onSearch = debounce(() => {
    state.search = search.value.trim();
    refilter();
  }, 250);
  search.addEventListener('input', onSearch);
  const onActive = debounce(() => {
    const n = parseInt(active.value, 10);
    state.activeMinutes = Number.isFinite(n) && n > 0 ? String(n) : '';
    refilter();
  }, 300);
  active.addEventListener('input', onActive);
  agent.addEventListener('change', () => {
    state.agent = agent.value;
    refilter();
  });
  const resetBtn = h('button', {type: 'button', class: 'btn btn-quiet', onclick: () => {
    state.search = '';
    state.kinds.clear();
    state.activeMinutes = '';
    state.agent = '';
    search.value = '';
    active.value = '';
    agent.value = '';
    for (const l of kindBoxes) l.querySelector('input').checked = false;
    refilter();
  }}, 'Clear filters');

  const filters = h('form', {class: 'filters', role: 'search', 'aria-label': 'Filter sessions', onsubmit: (e) => e.preventDefault()},
    h('div', {class: 'field field-grow'}, h('label', {for: 'f-search', text: 'Search'}), search),
    h('fieldset', {class: 'field kinds'}, h('legend', {text: 'Kinds'}), h('div', {class: 'checks'}, kindBoxes)),
    h('div', {class: 'field'}, h('label', {for: 'f-active', text: 'Active within (minutes)'}), active),
    h('div', {class: 'field'}, h('label', {for: 'f-agent', text: 'Agent'}), agent),
    h('div', {class: 'field field-end'}, resetBtn));

  // --- table ---
  const table = new VirtualTable({
    caption: 'Sessions',
    rowHeight: ROW_HEIGHT,
    rowKey: (r) => r.key,
    emptyText: 'Loading sessions…',
    onSort: (id) => {
      const dir = state.sort.id === id && state.sort.dir === 'desc' ? 'asc' : 'desc';
      state.sort = {id, dir: id === 'name' && state.sort.id !== id ? 'asc' : dir};
      remember();
      show();
    },
    columns: [
      {id: 'name', label: 'Session', sortable: true, className: 'col-name', width: '26%', render: nameCell},
      {id: 'kind', label: 'Kind', sortable: true, className: 'col-kind', width: '7%', render: (r) => r.kind || '—'},
      {id: 'channel', label: 'Channel', sortable: true, className: 'col-channel', width: '9%', render: (r) => r.channel || '—'},
      {id: 'model', label: 'Model', sortable: true, className: 'col-model', width: '12%', render: (r) => r.model || '—'},
      {id: 'tokens', label: 'Tokens', sortable: true, className: 'num col-tokens', width: '9%', render: (r) => fmtNumber(r.totalTokens || 0)},
      {id: 'tree', label: 'Tree tokens', sortable: true, className: 'num col-tree', width: '8%', render: treeCell},
      {id: 'updated', label: 'Updated', sortable: true, className: 'col-updated', width: '10%',
        render: (r) => h('time', {datetime: fmtISO(r.updatedAt), title: fmtISO(r.updatedAt), text: fmtRelative(r.updatedAt)})},
      {id: 'status', label: 'Status', sortable: true, className: 'col-status', width: '9%', render: statusCell},
      {id: 'sendPolicy', label: 'Send policy', sortable: true, className: 'col-policy', width: '10%', render: policyCell},
    ],
  });
  table.setSort(state.sort.id, state.sort.dir);

  const summary = h('p', {class: 'table-summary', role: 'status', 'aria-live': 'polite'});
  const moreBtn = h('button', {type: 'button', class: 'btn', hidden: true, onclick: () => {
    state.limit += PAGE;
    remember();
    load();
  }}, `Load ${PAGE} more`);
  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});

  clear(root);
  root.append(
    h('div', {class: 'view-head'},
      h('div', {}, h('h1', {text: 'Sessions'}), h('p', {class: 'subtle', text: 'Every session the gateway knows, most recently updated first.'}))),
    filters, errorBox, table.el, h('div', {class: 'table-foot'}, summary, moreBtn));

  function show() {
    const {id, dir} = state.sort;
    let rows = state.rows;
    if (!(id === 'updated' && dir === 'desc')) {
      const key = sorters[id] || sorters.updated;
      const sign = dir === 'asc' ? 1 : -1;
      rows = [...rows].sort((a, b) => {
        const x = key(a);
        const y = key(b);
        return (x < y ? -1 : x > y ? 1 : 0) * sign || (a.key < b.key ? -1 : 1);
      });
    }
    table.setSort(id, dir);
    table.emptyText = emptyState();
    table.setRows(rows);
    const n = state.rows.length;
    summary.textContent = state.loading && n === 0 ? 'Loading…'
      : `${fmtNumber(n)} session${n === 1 ? '' : 's'}${state.more ? ' loaded — more match' : ''}` +
        (id === 'updated' && dir === 'desc' ? '' : ' · sorted within the loaded rows');
    moreBtn.hidden = !state.more;
    errorBox.hidden = !state.error;
    errorBox.textContent = state.error;
  }

  // emptyState is what the table says when it has no row: while loading,
  // that it is loading; with a filter set, that nothing matches; on a
  // state with no session at all, what to do next.
  function emptyState() {
    if (state.loading) return 'Loading sessions…';
    if (state.error) return 'Sessions could not be loaded.';
    if (state.search || state.kinds.size || state.activeMinutes || state.agent) return 'No sessions match these filters.';
    return h('div', {class: 'empty-start'},
      h('p', {}, h('strong', {text: 'No sessions yet.'}), ' A session starts with its first message. To begin:'),
      h('ul', {},
        h('li', {}, h('a', {href: sessionHref('main'), text: 'Start a chat with main'}),
          ' — type a message; the reply appears as the model writes it.'),
        h('li', {}, 'Run ', h('code', {text: 'switchboard demo'}),
          ' in a terminal for a scripted tour: a chat, a sessions_send with its reply-back exchange and announce, and a spawned sub-agent (on a temporary state dir, printed as it happens).'),
        h('li', {}, 'Connect a chat channel under ', h('code', {text: 'channels'}),
          ' in the gateway\'s config: each conversation on it becomes a session here.')));
  }

  async function load() {
    const my = ++seq;
    state.loading = true;
    const q = new URLSearchParams({limit: String(state.limit + 1)});
    if (state.search) q.set('search', state.search);
    if (state.kinds.size) q.set('kinds', [...state.kinds].join(','));
    if (state.activeMinutes) q.set('activeMinutes', state.activeMinutes);
    if (state.agent) q.set('agentId', state.agent);
    try {
      const res = await gw.http('GET', `api/sessions?${q}`);
      if (my !== seq) return;
      const rows = (res && (res.sessions || res.rows)) || [];
      // One extra row was asked for to learn whether more match.
      state.more = rows.length > state.limit;
      state.rows = rows.slice(0, state.limit);
      state.error = '';
    } catch (err) {
      if (my !== seq) return;
      state.error = `Could not load sessions: ${errorText(err)}`;
    } finally {
      if (my === seq) state.loading = false;
    }
    show();
  }

  async function loadAgents() {
    try {
      const res = await gw.call('agents.list', {});
      for (const a of (res && res.agents) || []) {
        agent.append(h('option', {value: a.id, text: a.name && a.name !== a.id ? `${a.name} (${a.id})` : a.id}));
      }
      agent.value = state.agent;
    } catch {
      // The filter still works by typing nothing; the list is a convenience.
    }
  }

  const refresh = throttle(load, 1000);
  const tick = setInterval(() => table.renderBody(), 30000);
  gw.addEventListener('event', (ev) => {
    const e = ev.detail.event;
    if (e === 'sessions.changed' || (e === 'chat' && ev.detail.payload.state !== 'delta')) refresh();
  }, {signal: abort.signal});
  // The list needs sessions.changed only, not every run's events.
  const release = gw.subscribe('sessions');
  gw.addEventListener('open', () => load(), {signal: abort.signal});

  show();
  load();
  loadAgents();

  return {
    unmount() {
      release();
      abort.abort();
      refresh.cancel();
      onSearch.cancel();
      onActive.cancel();
      clearInterval(tick);
      table.destroy();
      seq++;
    },
  };
}

function nameCell(r) {
  const title = r.displayName || r.label;
  return h('div', {class: 'name-cell'},
    h('a', {href: sessionHref(r.key), class: 'row-link', title: r.key}, title || r.key),
    title ? h('span', {class: 'key mono', text: r.key}) : null);
}

function statusCell(r) {
  if (r.status) return statusBadge(r.status);
  if (r.abortedLastRun) return statusBadge('aborted');
  return h('span', {class: 'subtle', text: '—'});
}

function policyCell(r) {
  const p = r.sendPolicy || 'inherit';
  return h('span', {class: `policy policy-${p}`, text: p});
}

// treeTokens is a row's usage over its spawn tree (itself and every
// descendant), kept by the gateway as usage is charged.
function treeTokens(r) {
  const t = r.usage && r.usage.tree;
  return t ? (t.inputTokens || 0) + (t.outputTokens || 0) : 0;
}

// treeCell shows the tree's tokens, and the budget they count against.
function treeCell(r) {
  const n = treeTokens(r);
  const b = r.budget;
  const title = [`own ${fmtNumber(r.usage ? (r.usage.self.inputTokens || 0) + (r.usage.self.outputTokens || 0) : 0)} tokens`,
    r.usage && r.usage.tree.runs ? `${r.usage.tree.runs} runs in the tree` : '',
    b && b.tokens ? `budget ${fmtNumber(b.tokens)} tokens` : ''].filter(Boolean).join(' · ');
  return h('span', {class: 'tree-tokens', title, dataset: {treeTokens: String(n)}},
    fmtNumber(n), b && b.tokens ? h('span', {class: 'subtle', text: ` / ${fmtNumber(b.tokens)}`}) : null);
}
