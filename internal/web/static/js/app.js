// Entry point: connects to the gateway (asking for the token when one is
// needed), routes by URL hash and mounts one view at a time.
//
//   #/sessions          the session list
//   #/session/<key>     one session's transcript, chat box and actions
//   #/tree/<key>        the spawn tree under a session
//   #/runs              active and recent runs
//   #/search?q=…        full-text search of the transcripts
//   #/approvals         agent-to-agent calls held for an operator

import {Gateway} from './gateway.js';
import {h, clear, errorText} from './dom.js';
import {mountSessions} from './views/sessions.js';
import {mountSession} from './views/session.js';
import {mountTree} from './views/tree.js';
import {mountRuns} from './views/runs.js';
import {mountSearch} from './views/search.js';
import {mountApprovals} from './views/approvals.js';

const TOKEN_KEY = 'switchboard.token';

const routes = [
  {re: /^#\/sessions\/?$/, nav: 'sessions', mount: (ctx, el) => mountSessions(ctx, el)},
  {re: /^#\/session\/(.+)$/, nav: 'sessions', mount: (ctx, el, m) => mountSession(ctx, el, decodeURIComponent(m[1]))},
  {re: /^#\/tree\/(.+)$/, nav: 'sessions', mount: (ctx, el, m) => mountTree(ctx, el, decodeURIComponent(m[1]))},
  {re: /^#\/runs\/?$/, nav: 'runs', mount: (ctx, el) => mountRuns(ctx, el)},
  {re: /^#\/approvals\/?(?:.*)$/, nav: 'approvals', mount: (ctx, el) => mountApprovals(ctx, el)},
  {re: /^#\/search\/?(?:\?q=(.*))?$/, nav: 'search', mount: (ctx, el, m) => mountSearch(ctx, el, m[1] ? decodeURIComponent(m[1]) : '')},
];

function readToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  } catch {
    return '';
  }
}

function writeToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // Storage may be disabled; the token then lasts for this page only.
  }
}

class App {
  constructor() {
    this.main = document.getElementById('main');
    this.connEl = document.getElementById('conn');
    this.toasts = document.getElementById('toasts');
    this.dialog = document.getElementById('token-dialog');
    this.signout = document.getElementById('signout');
    this.gw = new Gateway(location.href, readToken());
    this.view = null;
    this.route = '';
    // memory keeps per-view state (filters, scroll) across navigation.
    this.memory = new Map();
    this.ctx = {
      gw: this.gw,
      toast: (msg, kind) => this.toast(msg, kind),
      memory: this.memory,
      setTitle: (t) => (document.title = t ? `${t} · switchboard` : 'switchboard'),
    };
  }

  start() {
    this.gw.addEventListener('state', (ev) => this.onState(ev.detail));
    this.gw.addEventListener('open', () => {
      this.signout.hidden = !this.gw.token;
      if (!this.view) this.render();
    });
    window.addEventListener('hashchange', () => this.render());
    this.setupDialog();
    this.signout.addEventListener('click', () => {
      writeToken('');
      this.unmount();
      this.gw.setToken('');
    });
    this.gw.start();
  }

  onState({state, message}) {
    const labels = {
      connecting: 'Connecting…',
      open: 'Live',
      reconnecting: 'Reconnecting…',
      auth: 'Token needed',
      closed: 'Disconnected',
    };
    this.connEl.dataset.state = state;
    this.connEl.textContent = labels[state] || state;
    this.connEl.title = message || '';
    if (state === 'auth') {
      // Nothing stays on screen without a valid token.
      this.unmount();
      this.askToken(this.gw.token ? 'That token was not accepted. ' + (message || '') : '');
    }
  }

  setupDialog() {
    const form = document.getElementById('token-form');
    const input = document.getElementById('token-input');
    // The dialog is the only way in; Escape must not leave an empty page.
    this.dialog.addEventListener('cancel', (ev) => ev.preventDefault());
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      writeToken(token);
      this.dialog.close();
      input.value = '';
      this.gw.setToken(token);
    });
  }

  askToken(error) {
    document.getElementById('token-error').textContent = error.trim();
    if (!this.dialog.open) this.dialog.showModal();
    document.getElementById('token-input').focus();
  }

  unmount() {
    if (this.view && this.view.unmount) this.view.unmount();
    this.view = null;
    this.route = '';
    clear(this.main);
  }

  render() {
    if (this.gw.state !== 'open') return;
    let hash = location.hash;
    let match = null;
    let route = routes.find((r) => (match = r.re.exec(hash)));
    if (!route) {
      hash = '#/sessions';
      history.replaceState(null, '', hash);
      route = routes[0];
      match = route.re.exec(hash);
    }
    if (hash === this.route && this.view) return;
    this.unmount();
    this.route = hash;
    for (const a of document.querySelectorAll('[data-nav]')) {
      if (a.dataset.nav === route.nav) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    const el = h('div', {class: 'view'});
    this.main.append(el);
    try {
      this.view = route.mount(this.ctx, el, match);
    } catch (err) {
      el.append(h('p', {class: 'notice notice-error', role: 'alert', text: `This page failed to load: ${errorText(err)}`}));
    }
    // Move focus to the new page's heading so keyboard and screen-reader
    // users land on it, as after a real navigation.
    const heading = el.querySelector('h1');
    if (heading) {
      heading.tabIndex = -1;
      heading.focus({preventScroll: true});
    }
  }

  // toast shows a short notice that announces itself to screen readers.
  toast(message, kind = 'info') {
    const el = h('div', {class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : undefined},
      h('span', {text: message}),
      h('button', {class: 'toast-close', type: 'button', 'aria-label': 'Dismiss', onclick: () => el.remove()}, '×'));
    this.toasts.append(el);
    setTimeout(() => el.remove(), kind === 'error' ? 10000 : 5000);
  }
}

new App().start();
