// #/memory/ID: one memory, every field, its key's history, its ledger rows
// and links; edit, archive, forget and restore when the key may write.
import { h, clear, count, fmtTime, fmtNum, pretty, kv, section, errorBox, note, field, select, bar } from '../dom.js';
import { get, post, del, call, hasRoute, ApiError } from '../api.js';
import { TYPES, LEVELS, contentBlock, memoryBadges, memoryLink, shortId } from './common.js';

const RESTORABLE = ['archive', 'retention', 'prune', 'reset', 'forget', 'capacity', 'tidy', 'govern'];

// save writes changes to m: PATCH /v1/memories/{id} when the server has it;
// otherwise, for a keyed memory, the key's upsert with every field kept
// (last write wins, and the key's history records the old revision).
export async function save(m, changes) {
  if (hasRoute('PATCH', '/v1/memories/{id}')) return call('PATCH', `/v1/memories/${encodeURIComponent(m.id)}`, { body: changes });
  if (!m.key) throw new Error('This memory has no key, and this server has no PATCH /v1/memories/{id}: it cannot be edited in place. Forget it and write a new one instead.');
  const source = m.source && typeof m.source === 'object' ? m.source : 'web-ui';
  const draft = {
    key: m.key, session_id: m.session_id || undefined, content: m.content, data: m.data, summary: m.summary || undefined,
    type: m.type, category: m.category || undefined, priority: m.priority, importance: m.importance, confidence: m.confidence,
    tags: m.tags || [], security_level: m.security_level, pinned: m.pinned, source, expires_at: m.expires_at || undefined,
    archived: m.archived, ...changes,
  };
  return post('/v1/memories', draft);
}

function editForm(m, done) {
  const content = h('textarea', { name: 'content', id: 'edit-content', rows: 5 });
  content.value = m.content || '';
  const f = h('form', { class: 'edit', id: 'edit-form', onsubmit: async (e) => {
    e.preventDefault();
    const d = new FormData(f);
    // Content is sent only when edited: a key that reads confidential
    // memories masked sees the mask here, which must never be written back.
    const text = String(d.get('content'));
    const changes = {
      ...(text !== (m.content || '') ? { content: text } : {}),
      tags: String(d.get('tags')).split(',').map((t) => t.trim()).filter(Boolean),
      type: String(d.get('type')),
      priority: parseInt(String(d.get('priority')), 10),
      pinned: d.get('pinned') === 'on',
      security_level: String(d.get('security_level')),
    };
    msg.textContent = 'Saving…';
    try {
      const res = await save(m, changes);
      if (res && res.applied === false) msg.textContent = 'Not applied: a newer write of this key wins (last write wins).';
      done();
    } catch (err) { clear(msg).append(errorBox(err)); }
  } },
  field('Content', content),
  h('div', { class: 'grid3' },
    field('Tags', h('input', { name: 'tags', id: 'edit-tags', value: (m.tags || []).join(', ') })),
    field('Type', h('input', { name: 'type', id: 'edit-type', list: 'type-list', value: m.type || '' })),
    field('Priority', select('priority', [['0', 'P0 (never decays)'], ['1', 'P1'], ['2', 'P2'], ['3', 'P3']], String(m.priority ?? 2))),
    field('Security level', select('security_level', LEVELS, m.security_level || 'internal')),
    h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'pinned', id: 'edit-pinned', checked: !!m.pinned }), ' Pinned')),
  h('datalist', { id: 'type-list' }, TYPES.map((t) => h('option', { value: t }))));
  const msg = h('div', { class: 'msg', 'aria-live': 'polite' });
  f.append(h('div', { class: 'row' }, h('button', { type: 'submit', class: 'btn primary', id: 'edit-save' }, 'Save'), msg));
  return f;
}

function confirmButton(label, confirmLabel, action, id) {
  const btn = h('button', { type: 'button', class: 'btn danger', id, onclick: async () => {
    if (btn.dataset.armed !== '1') {
      btn.dataset.armed = '1';
      btn.textContent = confirmLabel;
      setTimeout(() => { if (btn.isConnected) { btn.dataset.armed = ''; btn.textContent = label; } }, 5000);
      return;
    }
    btn.disabled = true;
    await action();
  } }, label);
  return btn;
}

export async function render(root, ctx) {
  const id = ctx.arg;
  let m;
  try {
    m = await get(`/v1/memories/${encodeURIComponent(id)}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      root.append(h('h1', {}, 'Memory not found'), note(`No memory ${id} for agent ${ctx.agent || '(the key\'s)'} in this key's tenant.`));
      return;
    }
    throw err;
  }
  const msg = h('div', { 'aria-live': 'polite', id: 'memory-msg' });
  const actions = h('div', { class: 'toolbar' });
  const reload = () => ctx.rerender();
  if (ctx.can('write')) {
    if (m.key || hasRoute('PATCH', '/v1/memories/{id}')) {
      const toggle = h('button', { type: 'button', class: 'btn', id: m.archived ? 'unarchive-btn' : 'archive-btn', onclick: async () => {
        toggle.disabled = true;
        try { await save(m, { archived: !m.archived }); reload(); } catch (e) { msg.append(errorBox(e)); toggle.disabled = false; }
      } }, m.archived ? 'Restore (unarchive)' : 'Archive');
      actions.append(toggle);
    }
    actions.append(confirmButton('Forget', 'Really forget? Click again', async () => {
      try { await del(`/v1/memories/${encodeURIComponent(m.id)}`); ctx.go('memories'); } catch (e) { msg.append(errorBox(e)); }
    }, 'forget-btn'));
  }
  root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Memory ', h('span', { class: 'mono muted small' }, shortId(m.id))), actions), msg);

  const grid = h('div', { class: 'detail-grid' });
  root.append(grid);
  const left = h('div', { class: 'grow' });
  const right = h('div', { class: 'side wide' });
  grid.append(left, right);

  left.append(section('Content', h('div', { id: 'memory-content' }, contentBlock(m, { full: true })), memoryBadges(m),
    m.summary ? h('p', { class: 'muted' }, 'Summary: ', m.summary) : null,
    m.data !== undefined && m.data !== null ? [h('h3', {}, 'Data'), h('pre', { class: 'pre json', id: 'memory-data' }, pretty(m.data))] : null));

  if (ctx.can('write')) {
    const edit = section('Correct');
    if (!m.key && !hasRoute('PATCH', '/v1/memories/{id}')) edit.append(note('This memory has no key and the server has no PATCH route: it can be forgotten but not edited in place.'));
    else edit.append(editForm(m, reload));
    left.append(edit);
  }

  const hist = section('Key history');
  left.append(hist);
  if (!m.key) hist.append(note('No key: a keyless memory has no revisions.'));
  else loadInto(hist, async () => {
    const r = await get('/v1/history', { key: m.key, limit: 100 });
    const revs = r.revisions || [];
    return h('ol', { class: 'history', id: 'history' }, revs.slice().reverse().map((rv) => h('li', { class: rv.applied === false ? 'lost' : '' },
      h('div', { class: 'row' }, h('strong', {}, `#${rv.seq} ${rv.op}`), ' ', h('span', { class: 'muted' }, fmtTime(rv.at)),
        rv.applied === false ? h('span', { class: 'badge warn' }, `lost last-write-wins${rv.winner_updated_at ? ` to ${fmtTime(rv.winner_updated_at)}` : ''}`) : null,
        rv.memory && rv.memory.source ? h('span', { class: 'badge' }, `source ${typeof rv.memory.source === 'string' ? rv.memory.source : rv.memory.source.kind || 'object'}`) : null,
        rv.memory && rv.memory.archived ? h('span', { class: 'badge arch' }, 'archived') : null),
      rv.memory ? contentBlock(rv.memory) : h('span', { class: 'muted' }, '(tombstone)'))));
  });

  right.append(section('Life', kv([
    ['Vitality', h('span', { class: 'vital' }, bar(m.vitality, 1), ` ${fmtNum(m.vitality, 3)}`)],
    ['Stability', `${fmtNum(m.stability, 1)} days`],
    ['Accessed', `${fmtNum(m.access_count)}× · last ${fmtTime(m.accessed_at)}`],
    ['Priority', `P${m.priority}`],
    ['Importance', fmtNum(m.importance, 2)],
    ['Confidence', fmtNum(m.confidence, 2)],
  ])));
  right.append(section('Fields', kv([
    ['id', h('span', { class: 'mono' }, m.id)], ['tenant', m.tenant_id], ['agent', m.agent_id], ['key', m.key ? h('span', { class: 'mono' }, m.key) : null],
    ['session', m.session_id], ['type', m.type], ['category', m.category], ['tags', (m.tags || []).join(', ')], ['security', m.security_level],
    ['pinned', String(!!m.pinned)], ['archived', h('span', { id: 'field-archived' }, String(!!m.archived))],
    ['source', m.source === undefined ? null : h('span', { class: 'mono' }, typeof m.source === 'string' ? m.source : pretty(m.source))],
    ['created', fmtTime(m.created_at)], ['updated', fmtTime(m.updated_at)], ['expires', m.expires_at ? fmtTime(m.expires_at) : null],
    ['version', String(m.version)], ['embedding', m.embedding_model],
  ])));

  const ledger = section('Ledger');
  right.append(ledger);
  loadInto(ledger, async () => {
    const r = await get('/v1/ledger', { memory_id: m.id, limit: 50 });
    const rows = r.entries || [];
    if (!rows.length) return h('p', { class: 'muted' }, 'No lifecycle events name this memory.');
    return h('ul', { class: 'ledger', id: 'ledger' }, rows.map((e) => h('li', {},
      h('div', {}, h('strong', {}, e.action), ` #${e.seq} · ${fmtTime(e.at)} · ${e.actor}`),
      e.reason ? h('div', { class: 'muted' }, e.reason) : null,
      RESTORABLE.includes(e.action) && ctx.can('admin') ? h('button', { type: 'button', class: 'btn small', dataset: { seq: String(e.seq) }, onclick: async (ev) => {
        ev.target.disabled = true;
        try { const res = await post('/v1/restore', { ledger_seq: e.seq }); msg.append(h('p', { class: 'ok' }, `Restored ${count((res.restored || []).length, 'memory', 'memories')}.`)); reload(); } catch (err) { msg.append(errorBox(err)); }
      } }, 'Restore from ledger') : null)));
  });

  const links = section('Links');
  right.append(links);
  loadInto(links, async () => {
    const r = await get('/v1/events/graph/neighbours', { node: m.id, direction: 'both', limit: 50 });
    const rels = r.relations || [];
    const out = h('div', {});
    if (!rels.length) out.append(h('p', { class: 'muted' }, 'No links.'));
    else out.append(h('ul', { class: 'links' }, rels.map((l) => {
      const other = l.source === m.id ? l.target : l.source;
      return h('li', {}, l.source === m.id ? '→ ' : '← ', h('span', { class: 'badge' }, l.type), ' ', h('a', { href: `#/graph?node=${encodeURIComponent(other)}` }, shortId(other)), ' ', memoryLink(other, '(open as memory)'));
    })));
    out.append(h('a', { class: 'btn small', href: `#/graph?node=${encodeURIComponent(m.id)}` }, 'Open in graph'));
    return out;
  });
}

function loadInto(panel, fn) {
  const wait = h('p', { class: 'muted' }, 'Loading…');
  panel.append(wait);
  fn().then((el) => wait.replaceWith(el)).catch((e) => wait.replaceWith(errorBox(e)));
}
