// mnemo's web inspector: a hash router over views that call the JSON API.
import { h, clear, put, errorBox, field } from './dom.js';
import { session, whoami, openapi, listAgents, setUnauthorizedHandler, ApiError } from './api.js';
import * as memories from './views/memories.js';
import * as memory from './views/memory.js';
import * as search from './views/search.js';
import * as events from './views/events.js';
import * as graph from './views/graph.js';
import * as context from './views/context.js';
import * as health from './views/health.js';

const views = {
  memories: { view: memories, title: 'Memories' },
  memory: { view: memory, title: 'Memory', hidden: true },
  search: { view: search, title: 'Search' },
  events: { view: events, title: 'Events' },
  graph: { view: graph, title: 'Graph' },
  context: { view: context, title: 'Context' },
  health: { view: health, title: 'Health' },
};

// parseHash turns #/memory/ID?x=1 into {name: 'memory', arg: 'ID', params}.
export function parseHash(hash = location.hash) {
  const raw = hash.replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  const [name, ...rest] = path.split('/');
  return { name: name || 'memories', arg: rest.map(decodeURIComponent).join('/'), params: new URLSearchParams(query) };
}

export function go(name, arg, params) {
  let hash = `#/${name}`;
  if (arg) hash += `/${encodeURIComponent(arg)}`;
  const q = params instanceof URLSearchParams ? params : new URLSearchParams(Object.entries(params || {}).filter(([, v]) => v !== '' && v !== undefined && v !== null && v !== false));
  if ([...q].length) hash += `?${q}`;
  if (location.hash === hash) render(); else location.hash = hash;
}

const main = () => document.getElementById('main');
let renderSeq = 0;

async function header(active) {
  const top = clear(document.getElementById('top'));
  const brand = h('a', { class: 'brand', href: '#/memories' }, h('img', { src: 'favicon.svg', alt: '', width: 22, height: 22 }), 'mnemo');
  if (!session.signedIn) { top.append(brand); return; }
  const me = session.me;
  const nav = h('nav', { class: 'nav', 'aria-label': 'Main' }, Object.entries(views).filter(([, v]) => !v.hidden).map(([name, v]) =>
    h('a', { href: `#/${name}`, 'aria-current': name === active || (active === 'memory' && name === 'memories') ? 'page' : false }, v.title)));
  const agents = await listAgents();
  const list = h('datalist', { id: 'agent-list' }, agents.map((a) => h('option', { value: a })));
  const agentInput = h('input', { name: 'agent', id: 'agent-input', list: 'agent-list', value: session.agent, placeholder: 'agent id', autocomplete: 'off', size: 12, 'aria-label': 'Agent' });
  const agentForm = h('form', { class: 'agent-form', onsubmit: (e) => { e.preventDefault(); session.agent = agentInput.value.trim(); render(); } },
    h('span', { class: 'muted' }, 'agent'), agentInput, list, h('button', { type: 'submit', class: 'btn small' }, 'Use'));
  const who = h('span', { class: 'who', title: me.probed ? 'scopes found by probing the API (the server has no /v1/whoami)' : '' },
    me.tenant ? h('span', {}, 'tenant ', h('strong', { id: 'who-tenant' }, me.tenant)) : null,
    me.key_name ? h('span', {}, ' key ', h('strong', {}, me.key_name)) : null,
    h('span', { class: 'scopes', id: 'who-scopes' }, me.scopes.map((sc) => h('span', { class: 'badge scope' }, sc))));
  // A keyless server signs everyone in: there is nothing to sign out of.
  const out = session.key || me.key_name ? h('button', { type: 'button', class: 'btn small ghost', onclick: () => { session.signOut(); go('memories'); } }, 'Sign out') : null;
  put(top, brand, nav, h('div', { class: 'top-right' }, agentForm, who, out));
}

function signIn(root, reason) {
  const key = h('input', { type: 'password', name: 'key', id: 'signin-key', autocomplete: 'off', placeholder: 'mnemo API key (blank on a keyless loopback server)' });
  const agent = h('input', { name: 'agent', id: 'signin-agent', placeholder: 'e.g. support (blank if the key has one agent)', autocomplete: 'off' });
  const msg = h('div', { 'aria-live': 'polite' }, reason ? errorBox(reason) : null);
  const form = h('form', { class: 'panel signin', id: 'signin', onsubmit: async (e) => {
    e.preventDefault();
    clear(msg);
    try {
      const me = await whoami(key.value.trim());
      if (!me.scopes.includes('read')) throw new Error('This key may not read memories (no read scope).');
      let a = agent.value.trim();
      if (!a && me.agents.length === 1) a = me.agents[0];
      session.signIn(key.value.trim(), a, me);
      render();
    } catch (err) {
      msg.append(errorBox(err instanceof ApiError && err.status === 401 ? 'The API key is not valid.' : err));
    }
  } },
  h('h1', {}, 'Sign in'),
  h('p', { class: 'muted' }, 'The inspector sees exactly what this key may see: its tenant, its agents, its scopes. The key stays in this tab (sessionStorage) and goes to the server only, in the Authorization header.'),
  field('API key', key), field('Agent', agent), msg,
  h('button', { type: 'submit', class: 'btn primary' }, 'Sign in'));
  root.append(form);
  key.focus();
}

// keylessSignIn signs in without a key when the server needs none (no API
// keys: loopback only): there is nothing to ask for. The agent is
// "default", the CLI's, when it has memories or no agent has, else the
// first that has.
async function keylessSignIn() {
  let me;
  try { me = await whoami(''); } catch { return; } // 401: the server has keys
  if (!me.scopes.includes('read')) return;
  session.signIn('', '', me);
  const agents = await listAgents();
  session.agent = agents.includes('default') || !agents.length ? 'default' : agents[0];
}

export async function render() {
  const seq = ++renderSeq;
  delete document.body.dataset.ready;
  const root = clear(main());
  await openapi();
  const { name, arg, params } = parseHash();
  const entry = views[name] || views.memories;
  document.title = `${entry.title} · mnemo`;
  if (!session.signedIn) await keylessSignIn();
  await header(name);
  if (seq !== renderSeq) return;
  if (!session.signedIn) { signIn(root); return; }
  const ctx = { arg, params, go, can: (sc) => session.can(sc), agent: session.agent, rerender: render, isCurrent: () => seq === renderSeq };
  try {
    await entry.view.render(root, ctx);
  } catch (err) {
    if (seq !== renderSeq) return;
    root.append(errorBox(err));
    if (err instanceof ApiError && /agent/i.test(err.message)) root.append(h('p', { class: 'note' }, 'Pick an agent in the bar at the top.'));
  }
  document.body.dataset.ready = name; // for tests: the view has rendered
}

setUnauthorizedHandler(() => { session.signOut(); const root = clear(main()); header(); signIn(root, 'The server no longer accepts this key: sign in again.'); });

window.addEventListener('hashchange', render);
document.addEventListener('keydown', (e) => {
  const t = e.target;
  const typing = t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName));
  if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey && session.signedIn) {
    e.preventDefault();
    const q = document.getElementById('search-q');
    if (q) q.focus(); else { sessionStorage.setItem('mnemo.focus', 'search-q'); go('search'); }
  }
});
render();
