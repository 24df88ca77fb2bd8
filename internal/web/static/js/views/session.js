// Session: one session's transcript, updating live, with a chat box (the
// page talks as the webchat user) and the session's actions: stop, reset
// and the send policy override.

import {h, clear, fmtNumber, fmtDuration, fmtRelative, fmtISO, throttle, statusBadge, errorText, sessionHref, treeHref, uuid, modelRef} from '../dom.js';
import {renderMessage, messageKey, textOf} from '../transcript.js';
import {sessionRow, sameSession} from '../data.js';

const FIRST_LIMIT = 200;
const MAX_LIMIT = 1000;

export function mountSession(ctx, root, ref) {
  const {gw} = ctx;
  const key = gw.canonicalKey(ref);
  const abort = new AbortController();
  const state = {
    row: null,
    rowLoaded: false,
    messages: [],
    keys: [],
    limit: FIRST_LIMIT,
    pending: [], // {runId, text, at}: sent, not yet in the transcript
    active: new Set(), // run ids of this session seen running
    streams: new Map(), // runId → {text, done}: a reply arriving (chat deltas)
    loaded: false,
    gone: false,
  };
  let seq = 0;
  ctx.setTitle(ref);

  // --- header ---
  const title = h('h1', {text: ref});
  const keyLine = h('p', {class: 'key mono', text: key});
  const chips = h('dl', {class: 'chips'});
  const lineage = h('p', {class: 'subtle lineage'});
  const stopBtn = h('button', {type: 'button', class: 'btn', onclick: stop}, 'Stop');
  const resetBtn = h('button', {type: 'button', class: 'btn btn-danger', onclick: reset}, 'Reset…');
  const policy = h('select', {id: 's-policy', 'aria-describedby': 's-policy-help'},
    h('option', {value: '', text: 'Inherit'}),
    h('option', {value: 'allow', text: 'Allow'}),
    h('option', {value: 'deny', text: 'Deny'}));
  policy.addEventListener('change', () => setPolicy(policy.value));
  const actions = h('div', {class: 'actions', role: 'group', 'aria-label': 'Session actions'},
    h('a', {class: 'btn', href: treeHref(ref)}, 'Spawn tree'),
    stopBtn, resetBtn,
    h('div', {class: 'inline-field'},
      h('label', {for: 's-policy', text: 'Send policy'}), policy,
      h('span', {id: 's-policy-help', class: 'visually-hidden', text: 'Allow or deny new messages to this session; Inherit follows the configuration.'})));

  // --- transcript ---
  const earlier = h('button', {type: 'button', class: 'btn btn-quiet', hidden: true, onclick: () => {
    state.limit = Math.min(MAX_LIMIT, state.limit * 2);
    loadHistory();
  }}, 'Show earlier messages');
  const list = h('div', {class: 'transcript-list'});
  const pendingEl = h('div', {class: 'transcript-pending'});
  const streamEl = h('div', {class: 'transcript-streams'});
  const working = h('p', {class: 'working', hidden: true, role: 'status'}, h('span', {class: 'dots', 'aria-hidden': 'true'}), 'Working…');
  const emptyEl = h('p', {class: 'empty', hidden: true, text: 'No messages yet. Say something below to start this session.'});
  const transcript = h('section', {class: 'transcript', role: 'log', 'aria-label': 'Transcript', 'aria-live': 'polite', 'aria-relevant': 'additions'},
    earlier, emptyEl, list, pendingEl, streamEl, working);

  // --- composer ---
  const input = h('textarea', {id: 'chat-input', rows: '2', placeholder: 'Message this session as the webchat user (Enter to send, Shift+Enter for a new line)',
    'aria-describedby': 'chat-notice'});
  const sendBtn = h('button', {type: 'submit', class: 'btn btn-primary'}, 'Send');
  const notice = h('p', {id: 'chat-notice', class: 'notice', role: 'alert', hidden: true});
  const form = h('form', {class: 'composer', 'aria-label': 'Send a message', onsubmit: (e) => {
    e.preventDefault();
    send();
  }},
  notice,
  h('div', {class: 'composer-row'},
    h('label', {for: 'chat-input', class: 'visually-hidden', text: 'Message'}), input, sendBtn));
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });

  clear(root);
  root.append(
    h('nav', {class: 'crumbs', 'aria-label': 'Breadcrumb'}, h('a', {href: '#/sessions', text: 'Sessions'}), h('span', {'aria-hidden': 'true', text: ' / '}), h('span', {text: ref})),
    h('div', {class: 'view-head session-head'}, h('div', {class: 'head-main'}, title, keyLine, lineage), actions),
    chips, transcript, form);

  function showNotice(text, kind = 'error') {
    notice.textContent = text;
    notice.className = `notice notice-${kind}`;
    notice.hidden = !text;
  }

  function renderHead() {
    const r = state.row;
    const name = r && (r.displayName || r.label);
    title.textContent = name || ref;
    keyLine.textContent = key;
    ctx.setTitle(name || ref);
    clear(chips);
    const chip = (label, value) => chips.append(h('div', {class: 'chip'}, h('dt', {text: label}), h('dd', {}, value)));
    if (!state.rowLoaded) {
      // Nothing yet rather than a guess that may be wrong.
    } else if (!r) {
      chip('Status', h('span', {class: 'subtle', text: 'new — no messages yet'}));
    } else {
      if (r.status) chip('Status', statusBadge(r.status));
      chip('Channel', r.channel || r.lastChannel || '—');
      chip('Model', modelRef(r.modelProvider, r.model) || '—');
      chip('Tokens', fmtNumber(r.totalTokens || 0));
      chip('Updated', h('time', {datetime: fmtISO(r.updatedAt), title: fmtISO(r.updatedAt), text: fmtRelative(r.updatedAt)}));
      chip('Send policy', h('span', {class: `policy policy-${r.sendPolicy || 'inherit'}`, text: r.sendPolicy || 'inherit'}));
      if (r.runtimeMs) chip('Runtime', fmtDuration(r.runtimeMs));
    }
    if (document.activeElement !== policy) policy.value = (r && r.sendPolicy) || '';
    clear(lineage);
    if (r && r.spawnedBy) lineage.append('Spawned by ', h('a', {href: sessionHref(r.spawnedBy), class: 'mono', text: r.spawnedBy}));
  }

  function renderTranscript() {
    const msgs = state.messages;
    const keys = msgs.map(messageKey);
    const nearBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
    const prefix = state.keys.length <= keys.length && state.keys.every((k, i) => k === keys[i]);
    if (!prefix) clear(list);
    for (let i = prefix ? state.keys.length : 0; i < msgs.length; i++) {
      const el = renderMessage(msgs[i]);
      el.dataset.role = msgs[i].role;
      list.append(el);
    }
    const added = keys.length - (prefix ? state.keys.length : 0);
    state.keys = keys;
    // A pending message is done once the transcript has it.
    state.pending = state.pending.filter((p) => !msgs.some((m) => m.role === 'user' && (m.timestamp || 0) >= p.at - 60000 && textOf(m) === p.text));
    clear(pendingEl);
    for (const p of state.pending) {
      pendingEl.append(h('article', {class: 'msg msg-user msg-pending'},
        h('header', {class: 'msg-head'}, h('span', {class: 'msg-role', text: 'User'}), h('span', {class: 'msg-source', text: 'sending…'})),
        h('div', {class: 'msg-body', text: p.text})));
    }
    // A finished stream gives way to the stored message once the
    // transcript has been read again.
    for (const [id, st] of state.streams) if (st.done) state.streams.delete(id);
    renderStreams();
    emptyEl.hidden = !state.loaded || msgs.length > 0 || state.pending.length > 0 || state.streams.size > 0;
    earlier.hidden = msgs.length < state.limit || state.limit >= MAX_LIMIT;
    working.hidden = state.pending.length === 0 && state.active.size === 0;
    if ((added > 0 || state.pending.length) && (nearBottom || !state.scrolled)) {
      state.scrolled = true;
      form.scrollIntoView({block: 'end'});
    }
  }

  // renderStreams shows each reply as it arrives: the text so far of its
  // latest chat delta (each delta carries the whole text so far).
  function renderStreams() {
    const nearBottom = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 160;
    clear(streamEl);
    for (const [id, st] of state.streams) {
      streamEl.append(h('article', {class: 'msg msg-assistant msg-streaming', 'data-run-id': id, 'aria-busy': 'true'},
        h('header', {class: 'msg-head'}, h('span', {class: 'msg-role', text: 'Assistant'}), h('span', {class: 'msg-source', text: 'writing…'})),
        h('div', {class: 'msg-body', text: st.text})));
    }
    if (state.streams.size && nearBottom) form.scrollIntoView({block: 'end'});
  }

  async function loadHistory() {
    const my = ++seq;
    try {
      const res = await gw.call('chat.history', {sessionKey: key, limit: state.limit});
      if (my !== seq) return;
      state.messages = (res && res.messages) || [];
      state.loaded = true;
      renderTranscript();
    } catch (err) {
      if (my !== seq) return;
      showNotice(`Could not load the transcript: ${errorText(err)}`);
    }
  }

  async function loadRow() {
    try {
      state.row = await sessionRow(gw, key);
      state.rowLoaded = true;
      renderHead();
    } catch (err) {
      showNotice(`Could not load the session: ${errorText(err)}`);
    }
  }

  async function send() {
    const text = input.value;
    if (!text.trim()) {
      input.focus();
      return;
    }
    sendBtn.disabled = true;
    showNotice('');
    try {
      const res = await gw.call('chat.send', {sessionKey: key, message: text, idempotencyKey: uuid()});
      input.value = '';
      if (res && res.runId && !res.reply && res.status !== 'ok') {
        state.pending.push({runId: res.runId, text, at: Date.now()});
      }
      if (res && (res.reply || res.command)) {
        showNotice(res.reply || `/${res.command} done.`, 'info');
      }
      renderTranscript();
      loadHistory();
    } catch (err) {
      showNotice(sendError(err));
    } finally {
      sendBtn.disabled = false;
      input.focus();
    }
  }

  async function stop() {
    stopBtn.disabled = true;
    try {
      const res = await gw.call('chat.abort', {sessionKey: key});
      const ids = (res && Array.isArray(res.runIds)) ? res.runIds : [];
      ctx.toast(ids.length ? `Stopped ${ids.length} run${ids.length === 1 ? '' : 's'}.` : 'Nothing was running.');
      state.pending = state.pending.filter((p) => !ids.includes(p.runId));
      for (const id of ids) state.active.delete(id);
      renderTranscript();
    } catch (err) {
      ctx.toast(`Stop failed: ${errorText(err)}`, 'error');
    } finally {
      stopBtn.disabled = false;
    }
  }

  async function reset() {
    if (!window.confirm(`Reset ${ref}?\n\nRunning work is stopped and a new, empty transcript starts. The old transcript is kept on disk.`)) return;
    resetBtn.disabled = true;
    try {
      await gw.call('sessions.reset', {key});
      ctx.toast('Session reset: a new transcript has started.');
      state.keys = [];
      clear(list);
      state.pending = [];
      await Promise.all([loadHistory(), loadRow()]);
    } catch (err) {
      ctx.toast(`Reset failed: ${errorText(err)}`, 'error');
    } finally {
      resetBtn.disabled = false;
    }
  }

  async function setPolicy(value) {
    policy.disabled = true;
    try {
      await gw.call('sessions.patch', {key, sendPolicy: value || null});
      ctx.toast(`Send policy set to ${value || 'inherit'}.`);
      showNotice('');
      await loadRow();
    } catch (err) {
      ctx.toast(`Could not change the send policy: ${errorText(err)}`, 'error');
      policy.value = (state.row && state.row.sendPolicy) || '';
    } finally {
      policy.disabled = false;
    }
  }

  const refreshHistory = throttle(loadHistory, 250);
  const refreshRow = throttle(loadRow, 1000);
  gw.addEventListener('event', (ev) => {
    const {event, payload} = ev.detail;
    if (event === 'chat') {
      if (!sameSession(gw, payload.sessionKey, key) && !state.pending.some((p) => p.runId === payload.runId)) return;
      if (payload.state === 'delta') {
        const text = textOf(payload.message || {});
        if (!state.streams.has(payload.runId) || !state.streams.get(payload.runId).done) {
          state.streams.set(payload.runId, {text, done: false});
          renderStreams();
        }
        return;
      }
      if (state.streams.has(payload.runId)) state.streams.get(payload.runId).done = true;
      if (payload.state === 'final' && state.pending.some((p) => p.runId === payload.runId)) {
        // The session may have been created by this run: subscribe again.
        gw.resubscribe();
      }
      if (payload.state && payload.state !== 'delta') {
        state.active.delete(payload.runId);
        const p = state.pending.find((x) => x.runId === payload.runId);
        if (p && (payload.state === 'error' || payload.state === 'aborted')) {
          state.pending = state.pending.filter((x) => x !== p);
          showNotice(payload.state === 'aborted' ? 'The run was stopped before it answered.' : `The run failed: ${payload.errorMessage || 'error'}`);
        }
      }
      refreshHistory();
      refreshRow();
    } else if (event === 'agent') {
      const mine = sameSession(gw, payload.sessionKey, key) || state.active.has(payload.runId) ||
        state.pending.some((p) => p.runId === payload.runId);
      if (!mine) return;
      const phase = payload.data && payload.data.phase;
      // Streamed pieces change nothing stored: the chat deltas render them.
      if (payload.stream === 'assistant' && payload.data && 'delta' in payload.data) return;
      if (payload.stream === 'tool' && phase === 'delta') return;
      if (payload.stream === 'lifecycle' && phase === 'start') state.active.add(payload.runId);
      if (payload.stream === 'lifecycle' && (phase === 'end' || phase === 'error')) {
        state.active.delete(payload.runId);
        if (state.streams.has(payload.runId)) state.streams.get(payload.runId).done = true;
      }
      refreshHistory();
    } else if (event === 'sessions.changed') {
      if (!sameSession(gw, payload.sessionKey || payload.key, key)) return;
      if (payload.reason === 'deleted') {
        showNotice('This session was deleted.', 'info');
      }
      if (payload.reason === 'reset') state.keys = [];
      refreshRow();
      refreshHistory();
    }
  }, {signal: abort.signal});
  gw.addEventListener('open', () => {
    // Events sent while disconnected are lost: the store has the replies.
    state.streams.clear();
    loadRow();
    loadHistory();
  }, {signal: abort.signal});

  // Only this session's events (and the runs this page starts) come.
  const releases = [gw.subscribe('sessions'), gw.subscribe('messages', key)];

  renderHead();
  loadRow();
  loadHistory();

  return {
    unmount() {
      for (const release of releases) release();
      abort.abort();
      refreshHistory.cancel();
      refreshRow.cancel();
      seq++;
    },
  };
}

// sendError explains a refused message in words a person can act on.
function sendError(err) {
  const msg = errorText(err);
  if (/send blocked by session policy/i.test(msg)) {
    return 'Not sent: the send policy of this session refuses new messages (send blocked by session policy). ' +
      'Set Send policy to Allow to send again.';
  }
  return `Not sent: ${msg}`;
}
