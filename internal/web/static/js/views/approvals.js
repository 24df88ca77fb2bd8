// Approvals: agent-to-agent calls an approvals rule holds, with Approve
// and Deny, and the latest decisions. Updates live from session.approval
// events. Needs a token with operator.approvals (or admin).

import {h, clear, fmtRelative, fmtISO, throttle, statusBadge, errorText, sessionHref} from '../dom.js';
import {listPanel, fillPanel, loader} from './lists.js';

export function mountApprovals(ctx, root) {
  const {gw} = ctx;
  ctx.setTitle('Approvals');
  const abort = new AbortController();
  const state = {pending: [], decided: [], error: ''};

  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});
  const columns = ['Status', 'Call', 'Message or task', 'Requester'];
  const pending = listPanel('approvals-pending', 'Pending', 'Pending approvals', [...columns, 'Expires'], true);
  const decided = listPanel('approvals-decided', 'Decided', 'Decided approvals', [...columns, 'Decided'], false);

  clear(root);
  root.append(
    h('div', {class: 'view-head'}, h('div', {}, h('h1', {text: 'Approvals'}),
      h('p', {class: 'subtle', text: 'Agent-to-agent sends and spawns held by approvals.rules until an operator decides.'}))),
    errorBox, pending.section, decided.section);

  function when(ms) {
    return h('time', {datetime: fmtISO(ms), title: fmtISO(ms), text: fmtRelative(ms)});
  }

  function row(a, isPending) {
    const p = a.presentation || {};
    const requester = a.sourceSessionKey || (a.source && a.source.sessionKey) || '';
    return h('tr', {dataset: {approvalId: a.id, status: a.status}},
      h('td', {}, statusBadge(a.status), a.decision ? h('span', {class: 'subtle', text: ` ${a.decision}`}) : null),
      h('td', {}, h('div', {text: p.title || a.id}), h('div', {class: 'subtle mono', text: a.id})),
      h('td', {class: 'approval-detail', text: p.detail || '—'}),
      h('td', {class: 'col-session'}, requester ? h('a', {href: sessionHref(requester), class: 'mono', text: requester}) : '—'),
      h('td', {}, when(isPending ? a.expiresAtMs : a.resolvedAtMs)),
      isPending ? h('td', {class: 'col-actions'},
        h('button', {type: 'button', class: 'btn btn-small btn-primary', 'aria-label': `Approve ${a.id}`,
          onclick: (e) => decide(a, 'allow-once', e.currentTarget)}, 'Approve'),
        h('button', {type: 'button', class: 'btn btn-small', 'aria-label': `Always approve ${a.id}`,
          onclick: (e) => decide(a, 'allow-always', e.currentTarget)}, 'Always'),
        h('button', {type: 'button', class: 'btn btn-small btn-danger', 'aria-label': `Deny ${a.id}`,
          onclick: (e) => decide(a, 'deny', e.currentTarget)}, 'Deny')) : null);
  }

  function render() {
    fillPanel(pending, state.pending, (a) => row(a, true), 'Nothing waits for a decision.');
    fillPanel(decided, state.decided, (a) => row(a, false), 'No decisions yet.');
    errorBox.hidden = !state.error;
    errorBox.textContent = state.error;
  }

  const load = loader(state, 'Could not load approvals',
    () => Promise.all([gw.call('approval.list', {}), gw.call('approval.history', {limit: 50})]),
    ([p, d]) => {
      state.pending = p.items || [];
      state.decided = d.items || [];
    }, render);

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
      load.stop();
    },
  };
}
