// Runs: active runs (queued or running, with cancel) and recent runs, with
// status, session and duration. Updates live from agent and chat events.

import {h, clear, fmtNumber, fmtDuration, fmtRelative, fmtISO, shortId, throttle, statusBadge, errorText, sessionHref} from '../dom.js';
import {runsOf} from '../data.js';

const RECENT = 100;

export function mountRuns(ctx, root) {
  const {gw} = ctx;
  ctx.setTitle('Runs');
  const abort = new AbortController();
  const state = {active: [], recent: [], limit: RECENT, more: false, error: ''};
  let seq = 0;

  const activeBody = h('tbody');
  const recentBody = h('tbody');
  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});
  const activeCount = h('span', {class: 'count'});
  const recentCount = h('span', {class: 'count'});
  const moreBtn = h('button', {type: 'button', class: 'btn', hidden: true, onclick: () => {
    state.limit += RECENT;
    load();
  }}, `Load ${RECENT} more`);

  const table = (caption, tbody, withCancel) => h('div', {class: 'table-scroll'},
    h('table', {class: 'table'},
      h('caption', {class: 'visually-hidden', text: caption}),
      h('thead', {}, h('tr', {},
        ['Status', 'Run', 'Kind', 'Session', 'Started', 'Duration', 'Tokens'].map((c) =>
          h('th', {scope: 'col', class: c === 'Tokens' || c === 'Duration' ? 'num' : '', text: c})),
        withCancel ? h('th', {scope: 'col', class: 'col-actions'}, h('span', {class: 'visually-hidden', text: 'Actions'})) : null)),
      tbody));

  clear(root);
  root.append(
    h('div', {class: 'view-head'}, h('div', {}, h('h1', {text: 'Runs'}),
      h('p', {class: 'subtle', text: 'Every chat turn, send, reply-back step, announce and sub-agent is a durable run.'}))),
    errorBox,
    h('section', {class: 'panel', 'aria-labelledby': 'runs-active'},
      h('h2', {id: 'runs-active'}, 'Active ', activeCount), table('Active runs', activeBody, true)),
    h('section', {class: 'panel', 'aria-labelledby': 'runs-recent'},
      h('h2', {id: 'runs-recent'}, 'Recent ', recentCount), table('Recent runs', recentBody, false),
      h('div', {class: 'table-foot'}, moreBtn)));

  function row(r, withCancel) {
    const running = r.status === 'running' || r.status === 'queued';
    const end = r.endedAt || (running && r.startedAt ? Date.now() : 0);
    const dur = r.startedAt && end ? end - r.startedAt : undefined;
    const tokens = r.usage && r.usage.totalTokens;
    return h('tr', {dataset: {runId: r.runId, status: r.status}},
      h('td', {title: r.error || undefined}, statusBadge(r.status)),
      h('td', {class: 'mono', title: r.runId}, h('span', {text: shortId(r.runId)}),
        r.traceId ? h(r.traceUrl ? 'a' : 'span', {class: 'trace-id subtle', href: r.traceUrl || undefined, target: r.traceUrl ? '_blank' : undefined,
          rel: r.traceUrl ? 'noopener' : undefined, title: `Trace ${r.traceId}`, dataset: {traceId: r.traceId},
          text: ` trace ${r.traceId.slice(0, 8)}`}) : null),
      h('td', {text: r.kind || '—'}),
      h('td', {class: 'col-session'}, r.sessionKey ? h('a', {href: sessionHref(r.sessionKey), class: 'mono', text: r.sessionKey}) : '—'),
      h('td', {}, h('time', {datetime: fmtISO(r.startedAt || r.createdAt), title: fmtISO(r.startedAt || r.createdAt),
        text: fmtRelative(r.startedAt || r.createdAt)})),
      h('td', {class: 'num duration', dataset: {start: r.startedAt || ''}, text: fmtDuration(dur)}),
      h('td', {class: 'num', text: tokens ? fmtNumber(tokens) : '—'}),
      withCancel ? h('td', {class: 'col-actions'},
        h('button', {type: 'button', class: 'btn btn-small btn-danger', 'aria-label': `Cancel run ${shortId(r.runId)}`,
          onclick: (e) => cancel(r, e.currentTarget)}, 'Cancel')) : null);
  }

  function render() {
    clear(activeBody);
    clear(recentBody);
    activeCount.textContent = `(${state.active.length})`;
    recentCount.textContent = `(${state.recent.length})`;
    if (!state.active.length) activeBody.append(h('tr', {}, h('td', {colspan: '8', class: 'empty', text: 'Nothing is running.'})));
    for (const r of state.active) activeBody.append(row(r, true));
    if (!state.recent.length) recentBody.append(h('tr', {}, h('td', {colspan: '7', class: 'empty', text: 'No runs yet.'})));
    for (const r of state.recent) recentBody.append(row(r, false));
    moreBtn.hidden = !state.more;
    errorBox.hidden = !state.error;
    errorBox.textContent = state.error;
  }

  async function load() {
    const my = ++seq;
    try {
      const [active, recent] = await Promise.all([
        gw.http('GET', 'api/runs?status=queued,running&limit=200'),
        gw.http('GET', `api/runs?limit=${state.limit + 1}`),
      ]);
      if (my !== seq) return;
      state.active = runsOf(active).filter((r) => r.status === 'queued' || r.status === 'running');
      const rec = runsOf(recent);
      state.more = rec.length > state.limit;
      state.recent = rec.slice(0, state.limit);
      state.error = '';
    } catch (err) {
      if (my !== seq) return;
      state.error = `Could not load runs: ${errorText(err)}`;
    }
    render();
  }

  async function cancel(r, btn) {
    btn.disabled = true;
    try {
      await gw.call('runs.cancel', {runId: r.runId});
      ctx.toast(`Cancelled run ${shortId(r.runId)}.`);
    } catch (err) {
      ctx.toast(`Cancel failed: ${errorText(err)}`, 'error');
      btn.disabled = false;
    }
    refresh();
  }

  const refresh = throttle(load, 500);
  gw.addEventListener('event', (ev) => {
    const {event, payload} = ev.detail;
    if ((event === 'chat' && payload.state !== 'delta') || (event === 'agent' && payload.stream === 'lifecycle') || event === 'sessions.changed') refresh();
  }, {signal: abort.signal});
  gw.addEventListener('open', () => load(), {signal: abort.signal});
  const tick = setInterval(() => {
    for (const td of activeBody.querySelectorAll('td.duration')) {
      const start = Number(td.dataset.start);
      if (start) td.textContent = fmtDuration(Date.now() - start);
    }
  }, 1000);

  render();
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
