// The page's connection to the switchboard gateway: one WebSocket speaking
// the gateway protocol (OpenClaw-compatible frames, used for calls and live
// events) plus the HTTP JSON API for the few things simpler there.
//
// Gateway is an EventTarget. It dispatches:
//   'state'  detail {state, message}: connecting | open | reconnecting | auth | closed
//   'open'   detail hello-ok payload, after every (re)connect: views refetch,
//            since events sent while disconnected are lost
//   'event'  detail {event, payload, seq}: a gateway event (tick excluded)

const PROTOCOL = {min: 3, max: 4};
const CLIENT = {id: 'webchat-ui', version: '1.0.0', platform: 'web', mode: 'webchat'};
const SCOPES = ['operator.read', 'operator.write', 'operator.admin'];
const CALL_TIMEOUT_MS = 30000;

// GatewayError is a failed call: code is the gateway's error code
// (INVALID_REQUEST, UNAVAILABLE, …) or DISCONNECTED / TIMEOUT / HTTP_<status>.
export class GatewayError extends Error {
  constructor(code, message, details) {
    super(message || code);
    this.name = 'GatewayError';
    this.code = code;
    this.details = details;
  }
}

// isAuthError reports whether an error means the token is missing or wrong.
export function isAuthError(err) {
  if (!err) return false;
  if (err.code === 'HTTP_401' || err.code === 'UNAUTHORIZED' || err.code === 'NOT_PAIRED') return true;
  return /unauthori[sz]ed|token/i.test(err.message || '');
}

export class Gateway extends EventTarget {
  // base is the URL the page was served from; the WebSocket and API live there.
  constructor(base, token) {
    super();
    this.base = new URL('.', base);
    this.token = token || '';
    this.ws = null;
    this.state = 'idle';
    this.hello = null;
    this.pending = new Map();
    this.waiters = [];
    this.seq = 0;
    this.attempt = 0;
    this.retryTimer = null;
    this.stopped = false;
    // subs: the event subscriptions the views hold (id → {kind, key, n}),
    // sent one at a time in order (subChain) and again after a reconnect.
    this.subs = new Map();
    this.subChain = Promise.resolve();
  }

  // subscribe asks for events: subscribe('sessions') for sessions.changed,
  // subscribe('messages', key) for one session's chat/agent events. It
  // returns the release. While the page holds no subscription it gets
  // every event (the gateway's broadcast for operators).
  subscribe(kind, key = '') {
    const id = kind === 'sessions' ? 'sessions' : `messages:${key}`;
    const s = this.subs.get(id) || {kind, key, n: 0};
    s.n++;
    this.subs.set(id, s);
    if (s.n === 1) this.sendSub(s, true);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--s.n > 0) return;
      this.subs.delete(id);
      this.sendSub(s, false);
    };
  }

  // resubscribe sends every held subscription again (after a reconnect, or
  // once a session the page subscribed to before it existed has a run).
  resubscribe() {
    for (const s of this.subs.values()) this.sendSub(s, true);
  }

  sendSub(s, on) {
    const method = s.kind === 'sessions' ? (on ? 'sessions.subscribe' : 'sessions.unsubscribe') :
      (on ? 'sessions.messages.subscribe' : 'sessions.messages.unsubscribe');
    const params = s.kind === 'sessions' ? {} : {key: s.key};
    this.subChain = this.subChain
      .then(() => (this.state === 'open' && this.ws ? this.rawCall(this.ws, method, params, CALL_TIMEOUT_MS) : null))
      .catch(() => {}); // a session that does not exist yet: resubscribe later
  }

  // start connects (and keeps reconnecting until stop or an auth failure).
  start() {
    this.stopped = false;
    this.open();
  }

  // stop closes the connection for good and fails every pending call.
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    if (this.ws) this.ws.close(1000, 'bye');
    this.failPending(new GatewayError('DISCONNECTED', 'connection closed'));
    this.setState('closed');
  }

  // setToken replaces the token and reconnects with it.
  setToken(token) {
    this.token = token || '';
    clearTimeout(this.retryTimer);
    if (this.ws) {
      const old = this.ws;
      this.ws = null;
      old.close(1000, 'new token');
    }
    this.failPending(new GatewayError('DISCONNECTED', 'reconnecting with a new token'));
    this.attempt = 0;
    this.stopped = false;
    this.open();
  }

  setState(state, message = '') {
    this.state = state;
    this.dispatchEvent(new CustomEvent('state', {detail: {state, message}}));
  }

  open() {
    const url = new URL(this.base);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    this.setState(this.attempt === 0 ? 'connecting' : 'reconnecting');
    let ws;
    try {
      ws = new WebSocket(url);
    } catch (err) {
      this.scheduleRetry(String(err));
      return;
    }
    this.ws = ws;
    let authFailed = false;
    ws.addEventListener('message', (ev) => {
      if (this.ws !== ws) return;
      let frame;
      try {
        frame = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (frame.type === 'event' && frame.event === 'connect.challenge') {
        this.sendConnect(ws).catch((err) => {
          if (this.ws !== ws) return;
          if (isAuthError(err)) {
            authFailed = true;
            this.setState('auth', err.message);
          } else {
            this.setState('reconnecting', err.message);
          }
          ws.close(1000);
        });
        return;
      }
      this.onFrame(frame);
    });
    ws.addEventListener('close', (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.hello = null;
      this.failPending(new GatewayError('DISCONNECTED', 'connection to the gateway was lost'));
      if (this.stopped) return;
      if (authFailed || (ev.code === 1008 && /unauthori[sz]ed|token/i.test(ev.reason))) {
        this.setState('auth', ev.reason || 'unauthorized');
        return;
      }
      this.scheduleRetry(ev.reason || 'connection closed');
    });
  }

  scheduleRetry(message) {
    if (this.stopped) return;
    this.attempt++;
    const delay = Math.min(10000, 400 * 2 ** Math.min(this.attempt, 5)) * (0.75 + Math.random() / 2);
    this.setState('reconnecting', message);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  async sendConnect(ws) {
    const params = {
      minProtocol: PROTOCOL.min,
      maxProtocol: PROTOCOL.max,
      client: CLIENT,
      role: 'operator',
      scopes: SCOPES,
      caps: [],
      locale: navigator.language,
      userAgent: navigator.userAgent,
      auth: this.token ? {token: this.token} : {},
    };
    const hello = await this.rawCall(ws, 'connect', params, 10000);
    this.hello = hello || {};
    this.attempt = 0;
    this.setState('open');
    this.resubscribe();
    this.dispatchEvent(new CustomEvent('open', {detail: this.hello}));
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.resolve();
  }

  onFrame(frame) {
    if (frame.type === 'res') {
      const p = this.pending.get(frame.id);
      if (!p) return; // a late second res (for example after an ack)
      if (frame.ok && frame.payload && frame.payload.status === 'accepted' && p.expectFinal) return;
      this.pending.delete(frame.id);
      clearTimeout(p.timer);
      if (frame.ok) {
        p.resolve(frame.payload);
      } else {
        const e = frame.error || {};
        p.reject(new GatewayError(e.code || 'ERROR', e.message || 'request failed', e.details));
      }
    } else if (frame.type === 'event' && frame.event !== 'tick') {
      this.dispatchEvent(new CustomEvent('event', {detail: {event: frame.event, payload: frame.payload || {}, seq: frame.seq}}));
    }
  }

  rawCall(ws, method, params, timeoutMs, expectFinal = false) {
    const id = `${++this.seq}:${method}`;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new GatewayError('TIMEOUT', `${method} did not answer within ${Math.round(timeoutMs / 1000)} s`));
      }, timeoutMs);
      this.pending.set(id, {resolve, reject, timer, expectFinal});
      try {
        ws.send(JSON.stringify({type: 'req', id, method, params}));
      } catch (err) {
        this.pending.delete(id);
        clearTimeout(timer);
        reject(new GatewayError('DISCONNECTED', String(err)));
      }
    });
  }

  failPending(err) {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(err);
  }

  // ready resolves once the connection is open (waiting through a reconnect).
  ready(timeoutMs = CALL_TIMEOUT_MS) {
    if (this.state === 'open' && this.ws) return Promise.resolve();
    if (this.state === 'auth') return Promise.reject(new GatewayError('UNAUTHORIZED', 'a gateway token is needed'));
    return new Promise((resolve, reject) => {
      const w = {resolve, reject};
      this.waiters.push(w);
      setTimeout(() => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) {
          this.waiters.splice(i, 1);
          reject(new GatewayError('DISCONNECTED', 'not connected to the gateway'));
        }
      }, timeoutMs);
    });
  }

  // call sends a request and resolves with its payload.
  async call(method, params = {}, {timeoutMs = CALL_TIMEOUT_MS} = {}) {
    await this.ready(timeoutMs);
    return this.rawCall(this.ws, method, params, timeoutMs);
  }

  // http calls the HTTP JSON API (path relative to the gateway, e.g. 'api/runs').
  async http(method, path, body) {
    const headers = {Accept: 'application/json'};
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    const init = {method, headers, cache: 'no-store'};
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(new URL(path, this.base), init);
    } catch (err) {
      throw new GatewayError('DISCONNECTED', `cannot reach the gateway (${err.message})`);
    }
    let data = null;
    const text = await res.text();
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    if (!res.ok || (data && data.ok === false)) {
      const e = (data && data.error) || {};
      const err = new GatewayError(res.status === 401 ? 'HTTP_401' : e.code || `HTTP_${res.status}`,
        e.message || (typeof data?.error === 'string' ? data.error : `${method} ${path}: HTTP ${res.status}`));
      if (res.status === 401) this.setState('auth', err.message);
      throw err;
    }
    return data;
  }

  // sessionDefaults says how keys are canonicalized ({defaultAgentId, mainKey, mainSessionKey}).
  get sessionDefaults() {
    const d = (this.hello && this.hello.snapshot && this.hello.snapshot.sessionDefaults) || {};
    const agent = d.defaultAgentId || 'main';
    const mainKey = d.mainKey || 'main';
    return {defaultAgentId: agent, mainKey, mainSessionKey: d.mainSessionKey || `agent:${agent}:${mainKey}`};
  }

  // canonicalKey turns a key as people write it (main, a bare key, a full
  // key) into the gateway's canonical agent:<id>:<rest> form.
  canonicalKey(key) {
    const k = String(key || '').trim().toLowerCase();
    const d = this.sessionDefaults;
    if (k === '' || k === 'main' || k === d.mainKey) return d.mainSessionKey;
    if (k.startsWith('agent:') || k === 'global' || k === 'unknown') return k;
    return `agent:${d.defaultAgentId}:${k}`;
  }
}
