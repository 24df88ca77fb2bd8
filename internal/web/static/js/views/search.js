// Search: full-text search of the transcripts (sessions.search, the
// sessions_search tool on the gateway). Every word must match; results are
// newest first, with a masked snippet and a link to the session. The query
// lives in the URL (#/search?q=…), so a search can be shared and reloaded.

import {h, clear, fmtRelative, fmtISO, errorText, sessionHref} from '../dom.js';

const PAGE = 25; // sessions.search takes at most 25 per call (OpenClaw's limit)

export function mountSearch(ctx, root, initial) {
  const {gw} = ctx;
  ctx.setTitle('Search');
  let seq = 0;
  let cursor = '';

  const input = h('input', {id: 'search-input', type: 'search', name: 'q', autocomplete: 'off', spellcheck: 'false',
    maxlength: '500', placeholder: 'words to find, e.g. deploy failed', value: initial || ''});
  const status = h('p', {class: 'subtle', role: 'status', 'aria-live': 'polite'});
  const errorBox = h('p', {class: 'notice notice-error', role: 'alert', hidden: true});
  const list = h('ol', {class: 'search-results', 'aria-label': 'Search results'});
  const moreBtn = h('button', {type: 'button', class: 'btn', hidden: true, onclick: () => run(true)}, 'More results');
  const form = h('form', {class: 'search-form', role: 'search', onsubmit: (ev) => {
    ev.preventDefault();
    const q = input.value.trim();
    const hash = q ? `#/search?q=${encodeURIComponent(q)}` : '#/search';
    if (location.hash !== hash) history.replaceState(null, '', hash);
    run(false);
  }},
  h('label', {for: 'search-input', text: 'Search messages'}),
  h('div', {class: 'search-row'}, input, h('button', {class: 'btn btn-primary', type: 'submit', text: 'Search'})));

  clear(root);
  root.append(
    h('div', {class: 'view-head'}, h('div', {}, h('h1', {text: 'Search'}),
      h('p', {class: 'subtle', text: 'Messages containing every word, newest first. Snippets are masked like history.'}))),
    form, errorBox, status, list, h('div', {class: 'table-foot'}, moreBtn));

  function hit(r) {
    const href = sessionHref(r.sessionKey);
    return h('li', {class: 'search-hit', dataset: {messageId: r.messageId}},
      h('div', {class: 'search-meta'},
        h('a', {href, class: 'mono', text: r.sessionKey}),
        h('span', {class: 'badge', text: r.role}),
        h('time', {datetime: fmtISO(r.timestamp), title: fmtISO(r.timestamp), text: fmtRelative(r.timestamp)})),
      h('p', {class: 'search-snippet', text: r.snippet}));
  }

  async function run(more) {
    const query = input.value.trim();
    errorBox.hidden = true;
    if (!query) {
      clear(list);
      status.textContent = '';
      moreBtn.hidden = true;
      return;
    }
    const mine = ++seq;
    if (!more) cursor = '';
    status.textContent = 'Searching…';
    try {
      const params = {query, limit: PAGE};
      if (more && cursor) params.cursor = cursor;
      const res = await gw.call('sessions.search', params);
      if (mine !== seq) return;
      if (!more) clear(list);
      for (const r of res.results || []) list.append(hit(r));
      cursor = res.nextCursor || '';
      moreBtn.hidden = !cursor;
      const n = list.children.length;
      status.textContent = n === 0 ? 'No matches.' : `${n} ${n === 1 ? 'match' : 'matches'}${cursor ? ' (more below)' : ''}`;
    } catch (err) {
      if (mine !== seq) return;
      status.textContent = '';
      errorBox.textContent = errorText(err);
      errorBox.hidden = false;
    }
  }

  if (initial) run(false);
  input.focus();
  return {unmount() { seq++; }};
}
