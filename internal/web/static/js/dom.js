// Small DOM and formatting helpers shared by the views. Everything that
// puts server data on the page goes through textContent (never innerHTML),
// so transcript text can't inject markup.

// h builds an element: h('a', {href: '#', class: 'x', onclick: fn}, 'text', child…).
// Attributes named on* become listeners; `text` sets textContent; false,
// null and undefined attributes and children are skipped.
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'text') {
      el.textContent = String(v);
    } else if (k === 'class') {
      el.className = v;
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (k === 'style' && typeof v === 'object') {
      Object.assign(el.style, v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === false || c === null || c === undefined) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// clear removes every child of el.
export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
}

// sessionHref and treeHref build the app's hash routes.
export const sessionHref = (key) => '#/session/' + encodeURIComponent(key);
export const treeHref = (key) => '#/tree/' + encodeURIComponent(key);

const numberFmt = new Intl.NumberFormat();

// fmtNumber formats a count with grouping ("12,345"); missing is "—".
export function fmtNumber(n) {
  if (n === undefined || n === null || Number.isNaN(n)) return '—';
  return numberFmt.format(n);
}

// fmtDuration formats milliseconds compactly: "850 ms", "12.4 s", "3m 05s", "2h 04m".
export function fmtDuration(ms) {
  if (ms === undefined || ms === null || ms < 0 || Number.isNaN(ms)) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

const rtf = new Intl.RelativeTimeFormat(undefined, {numeric: 'auto', style: 'short'});

// fmtRelative says how long ago ms (Unix ms) was: "now", "3 min. ago".
export function fmtRelative(ms, now = Date.now()) {
  if (!ms) return '—';
  const d = (ms - now) / 1000;
  const a = Math.abs(d);
  if (a < 10) return 'just now';
  if (a < 60) return rtf.format(Math.round(d), 'second');
  if (a < 3600) return rtf.format(Math.round(d / 60), 'minute');
  if (a < 86400) return rtf.format(Math.round(d / 3600), 'hour');
  return rtf.format(Math.round(d / 86400), 'day');
}

// fmtClock shows a time of day, with the date when it isn't today.
export function fmtClock(ms) {
  if (!ms) return '';
  const d = new Date(ms);
  const today = new Date();
  const opts = {hour: '2-digit', minute: '2-digit', second: '2-digit'};
  if (d.toDateString() !== today.toDateString()) {
    Object.assign(opts, {month: 'short', day: 'numeric'});
  }
  return d.toLocaleString(undefined, opts);
}

// fmtISO is the full timestamp for title attributes.
export const fmtISO = (ms) => (ms ? new Date(ms).toISOString() : '');

// shortId shortens a UUID for display ("3f2a9c1e…").
export const shortId = (id) => (id && id.length > 12 ? id.slice(0, 8) + '…' : id || '');

// throttle calls fn at most once every ms, always running a trailing call
// after the last request so the newest state wins. cancel() stops it.
export function throttle(fn, ms) {
  let timer = null;
  let last = 0;
  let queued = false;
  const run = () => {
    timer = null;
    queued = false;
    last = Date.now();
    fn();
  };
  const call = () => {
    if (queued) return;
    queued = true;
    timer = setTimeout(run, Math.max(0, last + ms - Date.now()));
  };
  call.cancel = () => {
    clearTimeout(timer);
    queued = false;
  };
  return call;
}

// debounce calls fn once ms after the last call.
export function debounce(fn, ms) {
  let timer = null;
  const call = (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
  call.cancel = () => clearTimeout(timer);
  return call;
}

// statusBadge shows a run or session status as a coloured label.
export function statusBadge(status, extraClass = '') {
  const s = status || 'idle';
  return h('span', {class: `badge status-${s} ${extraClass}`.trim(), text: s});
}

// errorText is a person-readable message for an error from the gateway.
export function errorText(err) {
  if (!err) return 'unknown error';
  return err.message || String(err);
}

// uuid returns a random UUID v4. crypto.randomUUID exists only in secure
// contexts, and a gateway on a LAN address over plain http is not one.
export function uuid() {
  if (crypto.randomUUID) {
    try {
      return crypto.randomUUID();
    } catch {
      // fall through
    }
  }
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const x = [...b].map((v) => v.toString(16).padStart(2, '0')).join('');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

// modelRef shows a model as provider/model, without repeating a provider
// that is also the model's name ("script", not "script/script").
export function modelRef(provider, model) {
  if (!model) return provider || '';
  if (!provider || model.includes('/') || model === provider) return model;
  return `${provider}/${model}`;
}
