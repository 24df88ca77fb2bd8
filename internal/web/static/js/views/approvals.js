// Approvals: agent-to-agent calls an approvals rule holds, with Approve
// and Deny, and the latest decisions. Updates live from session.approval
// events. Needs a token with operator.approvals (or admin).

import {h, clear, fmtRelative, fmtISO, throttle, statusBadge, errorText, sessionHref} from '../dom.js';

export function mountApprovals(ctx, root) {
  const {gw} = ctx;
  ctx.setTitle('Approvals');
  const abort = new AbortController();
  const state = {pending: [], decided: [], error: ''};
  let seq = 0;

  const pendingBody = h('tbody');
  const decidedBody = h('tbody');
  const pendingCount = h('span', {class: 'count'});
  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});

  const table = (caption, tbody, withActions) => h('div', {class: 'table-scroll'},
    h('table', {class: 'table'},
      h('caption', {class: 'visually-hidden', text: caption}),
      h('thead', {}, h('tr', {},
        ['Status', 'Call', 'Message or task', 'Requester', withActions ? 'Expires' : 'Decided'].map((c) => h('th', {scope: 'col', text: c})),
        withActions ? h('th', {scope: 'col', class: 'col-actions'}, h('span', {class: 'visually-hidden', text: 'Actions'})) : null)),
      tbody));

  clear(root);
  root.append(
    h('div', {class: 'view-head'}, h('div', {}, h('h1', {text: 'Approvals'}),
      h('p', {class: 'subtle', text: 'Agent-to-agent sends and spawns held by approvals.rules until an operator decides.'}))),
    errorBox,
    h('section', {class: 'panel', 'aria-labelledby': 'approvals-pending'},
      h('h2', {id: 'approvals-pending'}, 'Pending ', pendingCount), table('Pending approvals', pendingBody, true)),
    h('section', {class: 'panel', 'aria-labelledby': 'approvals-decided'},
      h('h2', {id: 'approvals-decided', text: 'Decided'}), table('Decided approvals', decidedBody, false)));

  function when(ms) {
    return h('time', {datetime: fmtISO(ms), title: fmtISO(ms), text: fmtRelative(ms)});
  }

  function row(a, pending) {
    const p = a.presentation || {};
    const requester = a.sourceSessionKey || (a.source && a.source.sessionKey) || '';
    return h('tr', {dataset: {approvalId: a.id, status: a.status}},
      h('td', {}, statusBadge(a.status), a.decision ? h('span', {class: 'subtle', text: ` ${a.decision}`}) : null),
      h('td', {}, h('div', {text: p.title || a.id}), h('div', {class: 'subtle mono', text: a.id})),
      h('td', {class: 'approval-detail', text: p.detail || '—'}),
      h('td', {class: 'col-session'}, requester ? h('a', {href: sessionHref(requester), class: 'mono', text: requester}) : '—'),
      h('td', {}, when(pending ? a.expiresAtMs : a.resolvedAtMs)),
      pending ? h('td', {class: 'col-actions'},
        h('button', {type: 'button', class: 'btn btn-small btn-primary', 'aria-label': `Approve ${a.id}`,
          onclick: (e) => decide(a, 'allow-once', e.currentTarget)}, 'Approve'),
        h('button', {type: 'button', class: 'btn btn-small', 'aria-label': `Always approve ${a.id}`,
          onclick: (e) => decide(a, 'allow-always', e.currentTarget)}, 'Always'),
        h('button', {type: 'button', class: 'btn btn-small btn-danger', 'aria-label': `Deny ${a.id}`,
          onclick: (e) => decide(a, 'deny', e.currentTarget)}, 'Deny')) : null);
  }

  function render() {
    clear(pendingBody);
    clear(decidedBody);
    pendingCount.textContent = `(${state.pending.length})`;
    if (!state.pending.length) pendingBody.append(h('tr', {}, h('td', {colspan: '6', class: 'empty', text: 'Nothing waits for a decision.'})));
    for (const a of state.pending) pendingBody.append(row(a, true));
    if (!state.decided.length) decidedBody.append(h('tr', {}, h('td', {colspan: '5', class: 'empty', text: 'No decisions yet.'})));
    for (const a of state.decided) decidedBody.append(row(a, false));
    errorBox.hidden = !state.error;
    errorBox.textContent = state.error;
  }

  async function load() {
    const my = ++seq;
    try {
      const [pending, decided] = await Promise.all([
        gw.call('approval.list', {}),
        gw.call('approval.history', {limit: 50}),
      ]);
      if (my !== seq) return;
      state.pending = pending.items || [];
      state.decided = decided.items || [];
      state.error = '';
    } catch (err) {
      if (my !== seq) return;
      state.error = `Could not load approvals: ${errorText(err)}`;
    }
    render();
  }

  async function decide(a, decision, btn) {
    for (const b of btn.parentElement.querySelectorAll('button')) b.disabled = true;
    try {
      const res = await gw.call('approval.resolve', {id: a.id, kind: 'plugin', decision});
      const s = res.approval.status;
      ctx.toast(res.applied ? `Approval ${a.id}: ${s}.` : `Approval ${a.id} was already ${s}.`);
    } catch (err) {
      ctx.toast(`Decision failed: ${errorText(err)}`, 'error');
      for (const b of btn.parentElement.querySelectorAll('button')) b.disabled = false;
    }
    refresh();
  }

  const refresh = throttle(load, 300);
  gw.addEventListener('event', (ev) => {
    if (ev.detail.event === 'session.approval') refresh();
  }, {signal: abort.signal});
  gw.addEventListener('open', () => load(), {signal: abort.signal});

  render();
  load();
  return {
    unmount() {
      abort.abort();
      refresh.cancel();
      seq++;
    },
  };
}
