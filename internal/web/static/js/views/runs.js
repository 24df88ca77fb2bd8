// Runs: active runs (queued or running, with cancel) and recent runs, with
// status, session and duration. Updates live from agent and chat events.

import {h, clear, fmtNumber, fmtDuration, fmtRelative, fmtISO, shortId, throttle, statusBadge, errorText, sessionHref} from '../dom.js';
import {runsOf} from '../data.js';
import {listPanel, fillPanel, loader} from './lists.js';

const RECENT = 100;

export function mountRuns(ctx, root) {
  const {gw} = ctx;
  ctx.setTitle('Runs');
  const abort = new AbortController();
  const state = {active: [], recent: [], limit: RECENT, more: false, error: ''};

  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});
  const moreBtn = h('button', {type: 'button', class: 'btn', hidden: true, onclick: () => {
    state.limit += RECENT;
    load();
  }}, `Load ${RECENT} more`);
  const columns = ['Status', 'Run', 'Kind', 'Session', 'Started', ['Duration', 'num'], ['Tokens', 'num']];
  const active = listPanel('runs-active', 'Active', 'Active runs', columns, true);
  const recent = listPanel('runs-recent', 'Recent', 'Recent runs', columns, false, h('div', {class: 'table-foot'}, moreBtn));

  clear(root);
  root.append(
    h('div', {class: 'view-head'}, h('div', {}, h('h1', {text: 'Runs'}),
      h('p', {class: 'subtle', text: 'Every chat turn, send, reply-back step, announce and sub-agent is a durable run.'}))),
    errorBox, active.section, recent.section);

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
    fillPanel(active, state.active, (r) => row(r, true), 'Nothing is running.');
    fillPanel(recent, state.recent, (r) => row(r, false), 'No runs yet.');
    moreBtn.hidden = !state.more;
    errorBox.hidden = !state.error;
    errorBox.textContent = state.error;
  }

  const load = loader(state, 'Could not load runs',
    () => Promise.all([
      gw.http('GET', 'api/runs?status=queued,running&limit=200'),
      gw.http('GET', `api/runs?limit=${state.limit + 1}`),
    ]),
    ([a, r]) => {
      state.active = runsOf(a).filter((x) => x.status === 'queued' || x.status === 'running');
      const rec = runsOf(r);
      state.more = rec.length > state.limit;
      state.recent = rec.slice(0, state.limit);
    }, render);

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
    for (const td of active.tbody.querySelectorAll('td.duration')) {
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
      load.stop();
    },
  };
}
