// The UI is one more client of the JSON API: the same routes, the same API
// key and scopes as any agent. Nothing here can do what the key may not.

const KEY = 'mnemo.key';
const AGENT = 'mnemo.agent';
const AGENTS = 'mnemo.agents';
const ME = 'mnemo.me';

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
    this.status = status;
    this.code = problem && problem.code;
  }
}

export const session = {
  get key() { return sessionStorage.getItem(KEY) || ''; },
  get agent() { return sessionStorage.getItem(AGENT) || ''; },
  set agent(a) {
    sessionStorage.setItem(AGENT, a || '');
    if (a) {
      const known = this.agents.filter((x) => x !== a);
      sessionStorage.setItem(AGENTS, JSON.stringify([a, ...known].slice(0, 20)));
    }
  },
  get agents() {
    try { return JSON.parse(sessionStorage.getItem(AGENTS) || '[]'); } catch { return []; }
  },
  get me() {
    try { return JSON.parse(sessionStorage.getItem(ME) || 'null'); } catch { return null; }
  },
  signIn(key, agent, me) {
    sessionStorage.setItem(KEY, key || '');
    sessionStorage.setItem(ME, JSON.stringify(me));
    this.agent = agent;
  },
  signOut() {
    for (const k of [KEY, AGENT, AGENTS, ME]) sessionStorage.removeItem(k);
    spec = null;
  },
  get signedIn() { return sessionStorage.getItem(ME) !== null; },
  can(scope) { const me = this.me; return !!me && me.scopes.includes(scope); },
};

function headers(key, json) {
  const hd = { Accept: 'application/json' };
  if (key) hd.Authorization = `Bearer ${key}`;
  if (json) hd['Content-Type'] = 'application/json';
  return hd;
}

function qs(query) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) {
    if (v === undefined || v === null || v === '' || v === false) continue;
    if (Array.isArray(v)) { if (v.length) p.set(k, v.join(',')); } else p.set(k, String(v));
  }
  const s = p.toString();
  return s ? `?${s}` : '';
}

export let onUnauthorized = () => {};
export function setUnauthorizedHandler(fn) { onUnauthorized = fn; }

// Recent latency of the searches this UI ran, for the health page.
export const latencies = [];

// call sends one request. withAgent adds the selected agent to the query
// (GET, DELETE) or body (others) unless the caller gave one.
export async function call(method, path, { query, body, raw, key = session.key, withAgent = true, text = false } = {}) {
  const q = { ...(query || {}) };
  let b = body;
  const agent = session.agent;
  if (withAgent && agent) {
    if (method === 'GET' || method === 'DELETE') { if (q.agent_id === undefined) q.agent_id = agent; }
    else if (b && typeof b === 'object' && b.agent_id === undefined) b = { agent_id: agent, ...b };
  }
  const init = { method, headers: headers(key, b !== undefined || raw !== undefined), cache: 'no-store' };
  if (raw !== undefined) init.body = raw;
  else if (b !== undefined) init.body = JSON.stringify(b);
  const res = await fetch(path + qs(q), init);
  if (!res.ok) {
    let problem = null;
    try { problem = await res.json(); } catch { /* not JSON */ }
    const err = new ApiError(res.status, problem);
    if (res.status === 401 && key === session.key && session.signedIn) onUnauthorized(err);
    throw err;
  }
  if (text) return res.text();
  const ct = res.headers.get('Content-Type') || '';
  return ct.includes('json') ? res.json() : res.text();
}

export const get = (path, query, opts) => call('GET', path, { ...opts, query });
export const post = (path, body, opts) => call('POST', path, { ...opts, body });
export const del = (path, query, opts) => call('DELETE', path, { ...opts, query });

// The OpenAPI document says which routes and parameters this server has, so
// the UI uses a better route when the server grows one and falls back when
// it has not (see web/README.md).
let spec = null;
export async function openapi() {
  if (!spec) spec = await call('GET', '/openapi.json', { withAgent: false, key: '' }).catch(() => ({ paths: {} }));
  return spec;
}
export function hasRoute(method, path) {
  return !!(spec && spec.paths && spec.paths[path] && spec.paths[path][method.toLowerCase()]);
}
export function routeParams(method, path) {
  const op = spec && spec.paths && spec.paths[path] && spec.paths[path][method.toLowerCase()];
  return op ? (op.parameters || []).filter((p) => p.in === 'query').map((p) => p.name) : [];
}
export function paramEnum(method, path, name) {
  const op = spec && spec.paths && spec.paths[path] && spec.paths[path][method.toLowerCase()];
  const p = op && (op.parameters || []).find((x) => x.name === name);
  return (p && p.schema && (p.schema.enum || (p.schema.items && p.schema.items.enum))) || null;
}

// whoami returns what key grants: {key_name, tenant, agents, scopes}.
// GET /v1/whoami answers when the server has it; otherwise each scope is
// probed with a request its route refuses before doing anything: a body
// that is not JSON. Scope checks come before the body is read, so 403
// means the scope is missing and 400 that it is held; nothing is written.
export async function whoami(key) {
  await openapi();
  if (hasRoute('GET', '/v1/whoami')) {
    const me = await call('GET', '/v1/whoami', { key, withAgent: false });
    return { key_name: me.key_name || '', tenant: me.tenant || '', agents: me.agents || [], scopes: me.scopes || [], probed: false };
  }
  const probe = async (path) => {
    try {
      await call('POST', path, { key, raw: 'not json', withAgent: false });
      return true;
    } catch (e) {
      if (e.status === 401) throw e;
      return e.status === 400 || e.status === 422;
    }
  };
  const scopes = [];
  if (await probe('/v1/surface')) scopes.push('read');
  if (await probe('/v1/memories')) scopes.push('write');
  if (await probe('/v1/reset')) scopes.push('admin');
  return { key_name: '', tenant: '', agents: [], scopes, probed: true };
}

// listAgents returns the agents the UI can offer: the server's list when it
// has GET /v1/agents, else the key's agents, else those used in this tab.
export async function listAgents() {
  if (hasRoute('GET', '/v1/agents')) {
    try {
      const r = await get('/v1/agents', {}, { withAgent: false });
      return (r.agents || []).map((a) => (typeof a === 'string' ? a : a.agent_id));
    } catch { /* fall back */ }
  }
  const me = session.me;
  if (me && me.agents && me.agents.length) return me.agents;
  return session.agents;
}
