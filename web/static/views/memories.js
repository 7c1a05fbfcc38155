// #/memories: browse an agent's memories with filters, a key tree and pages.
import { h, clear, fmtTime, fmtNum, field, select, errorBox, note, section } from '../dom.js';
import { get, post, routeParams, hasRoute } from '../api.js';
import { TYPES, LEVELS, contentBlock, memoryBadges, vitality } from './common.js';

const PAGE = 100;

// nextSegment returns the child "directory" (ending in /) or leaf key of
// key under prefix, as a directory listing would show it.
export function nextSegment(prefix, key) {
  const rest = key.slice(prefix.length);
  const scheme = !prefix && /^[a-z][a-z0-9+.-]*:\/\//i.exec(rest);
  if (scheme) return { name: scheme[0], dir: true };
  const i = rest.indexOf('/', rest.startsWith('/') ? 1 : 0);
  if (i < 0) return { name: rest, dir: false };
  return { name: rest.slice(0, i + 1), dir: true };
}

async function keyTree(prefix, onPick) {
  const box = h('nav', { class: 'tree', 'aria-label': 'Key tree' });
  const crumbs = h('div', { class: 'crumbs' }, h('button', { type: 'button', class: 'link', onclick: () => onPick('') }, 'all keys'));
  let acc = '';
  for (const part of prefix.match(/[a-z][a-z0-9+.-]*:\/\/|[^/]*\//gi) || []) {
    acc += part;
    const p = acc;
    crumbs.append(' ', h('button', { type: 'button', class: 'link', onclick: () => onPick(p) }, part));
  }
  if (prefix && !prefix.endsWith('/') && !prefix.endsWith('//')) crumbs.append(' ', h('strong', {}, prefix.slice(acc.length)));
  box.append(crumbs);
  let children = [];
  let more = false;
  if (hasRoute('GET', '/v1/keys/tree')) {
    const r = await get('/v1/keys/tree', { prefix });
    children = (r.children || []).map((c) => ({ name: c.name, dir: c.dir, count: c.count }));
  } else {
    // No tree route: list keys in key order, a sample of 200 under the
    // prefix, and group them by their next segment.
    const r = await get('/v1/memories', { key_prefix: prefix || undefined, order: 'key', limit: 200, include_archived: true });
    const seen = new Map();
    for (const m of r.memories || []) {
      if (!m.key || !m.key.startsWith(prefix)) continue;
      const seg = nextSegment(prefix, m.key);
      const cur = seen.get(seg.name) || { ...seg, count: 0 };
      cur.count++;
      seen.set(seg.name, cur);
    }
    children = [...seen.values()];
    more = r.has_more;
  }
  const ul = h('ul', {}, children.map((c) => h('li', {}, h('button', { type: 'button', class: ['link', c.dir ? 'dir' : 'leaf'], onclick: () => onPick(prefix + c.name) },
    c.dir ? '▸ ' : '· ', c.name, c.dir && c.count ? h('small', { class: 'muted' }, ` ${c.count}${more ? '+' : ''}`) : null))));
  box.append(children.length ? ul : h('p', { class: 'muted small' }, 'No keys here.'));
  if (more) box.append(h('p', { class: 'muted small' }, 'Sampled from the first 200 keys.'));
  return box;
}

function filtersForm(p, apply) {
  const f = h('form', { class: 'filters', id: 'filters', onsubmit: (e) => {
    e.preventDefault();
    const d = new FormData(f);
    const next = {};
    for (const [k, v] of d.entries()) if (String(v).trim()) next[k] = String(v).trim();
    apply(next);
  } },
  field('Type', select('type', ['', ...TYPES], p.get('type') || '')),
  field('Tags', h('input', { name: 'tags', value: p.get('tags') || '', placeholder: 'a,b' })),
  field('Key prefix', h('input', { name: 'prefix', value: p.get('prefix') || '', placeholder: '/user/' })),
  field('Pinned', select('pinned', [['', 'any'], ['yes', 'pinned'], ['no', 'not pinned']], p.get('pinned') || '')),
  field('Archived', select('archived', [['', 'live only'], ['include', 'include archived'], ['only', 'archived only']], p.get('archived') || '')),
  field('Security', select('level', ['', ...LEVELS], p.get('level') || '')),
  field('Created after', h('input', { type: 'datetime-local', name: 'after', value: p.get('after') || '' })),
  field('Created before', h('input', { type: 'datetime-local', name: 'before', value: p.get('before') || '' })),
  field('Order', select('order', [['', 'newest'], ['oldest', 'oldest'], ['key', 'key'], ['vitality', 'vitality']], p.get('order') || '')),
  h('div', { class: 'filter-actions' }, h('button', { type: 'submit', class: 'btn primary' }, 'Apply'),
    h('a', { class: 'btn ghost', href: '#/memories' }, 'Reset')));
  return f;
}

const iso = (local) => (local ? new Date(local).toISOString() : undefined);

export async function render(root, ctx) {
  const p = ctx.params;
  const offset = Math.max(0, parseInt(p.get('offset') || '0', 10) || 0);
  const setParams = (next) => ctx.go('memories', '', next);
  const withParam = (k, v) => { const n = Object.fromEntries(p); delete n.offset; if (v) n[k] = v; else delete n[k]; return n; };

  const supported = routeParams('GET', '/v1/memories');
  const query = {
    limit: PAGE, offset,
    types: p.get('type') || undefined,
    tags: p.get('tags') || undefined,
    key_prefix: p.get('prefix') || undefined,
    include_archived: p.get('archived') === 'include' || p.get('archived') === 'only' || undefined,
    created_after: iso(p.get('after')), created_before: iso(p.get('before')),
    order: p.get('order') || undefined,
  };
  // Filters the route may not have: sent when the OpenAPI document lists
  // them, else applied to the page in the browser (and said so).
  const local = [];
  if (p.get('pinned')) { if (supported.includes('pinned')) query.pinned = p.get('pinned') === 'yes'; else local.push('pinned'); }
  if (p.get('level')) { if (supported.includes('security_levels')) query.security_levels = p.get('level'); else local.push('security level'); }
  if (p.get('archived') === 'only') { if (supported.includes('archived_only')) query.archived_only = true; else local.push('archived only'); }

  const head = h('div', { class: 'page-head' }, h('h1', {}, 'Memories'), h('span', { class: 'muted' }, ctx.agent ? `agent ${ctx.agent}` : ''));
  const toolbar = h('div', { class: 'toolbar' });
  if (ctx.can('write')) toolbar.append(h('button', { type: 'button', class: 'btn', id: 'reflect-btn', onclick: () => reflectPanel(toolbar) }, 'Reflect (dry run)…'));
  head.append(toolbar);
  root.append(head);

  const layout = h('div', { class: 'split' });
  const side = h('aside', { class: 'side' });
  const body = h('div', { class: 'grow' });
  layout.append(side, body);
  root.append(layout);
  // On a phone the filters fold away, so that the list comes first.
  const box = h('details', { class: 'filters-box', open: !matchMedia('(max-width: 640px)').matches }, h('summary', {}, 'Filters'), filtersForm(p, setParams));
  side.append(box);
  keyTree(p.get('prefix') || '', (pre) => setParams(withParam('prefix', pre))).then((t) => side.prepend(t)).catch((e) => side.prepend(errorBox(e)));

  const t0 = performance.now();
  const r = await get('/v1/memories', query);
  let list = r.memories || [];
  if (p.get('pinned') && local.includes('pinned')) list = list.filter((m) => m.pinned === (p.get('pinned') === 'yes'));
  if (p.get('level') && local.includes('security level')) list = list.filter((m) => m.security_level === p.get('level'));
  if (p.get('archived') === 'only' && local.includes('archived only')) list = list.filter((m) => m.archived);
  const ms = Math.round(performance.now() - t0);

  const total = r.total ?? list.length;
  const pager = h('div', { class: 'pager' },
    h('button', { type: 'button', class: 'btn small', disabled: offset === 0, onclick: () => setParams({ ...Object.fromEntries(p), offset: Math.max(0, offset - PAGE) }) }, '← Prev'),
    h('span', { id: 'page-info' }, total ? `${fmtNum(offset + 1)}–${fmtNum(Math.min(offset + PAGE, total))} of ${fmtNum(total)}` : 'none', h('small', { class: 'muted' }, ` · ${ms} ms`)),
    h('button', { type: 'button', class: 'btn small', id: 'next-page', disabled: !r.has_more, onclick: () => setParams({ ...Object.fromEntries(p), offset: r.next_offset ?? offset + PAGE }) }, 'Next →'),
    total > PAGE ? h('button', { type: 'button', class: 'btn small ghost', disabled: !r.has_more, onclick: () => setParams({ ...Object.fromEntries(p), offset: Math.floor((total - 1) / PAGE) * PAGE }) }, 'Last') : null);
  body.append(pager);
  if (local.length) body.append(note(`Filtered in the browser, within this page only (the server's list has no ${local.join(', ')} parameter).`));

  if (!list.length) { body.append(h('p', { class: 'empty' }, 'No memories match.')); return; }
  const table = h('table', { class: 'mem-table', id: 'mem-table' },
    h('thead', {}, h('tr', {}, ['Content', 'Key', 'Labels', 'Vitality', 'Updated'].map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, list.map((m) => h('tr', { dataset: { id: m.id } },
      h('td', { class: 'c-content', 'data-label': 'Content' }, h('a', { href: `#/memory/${encodeURIComponent(m.id)}`, class: 'row-link' }, contentBlock(m))),
      h('td', { class: 'c-key mono', 'data-label': 'Key' }, m.key ? h('button', { type: 'button', class: 'link mono', onclick: () => setParams(withParam('prefix', m.key)) }, m.key) : h('span', { class: 'muted' }, '—')),
      h('td', { 'data-label': 'Labels' }, memoryBadges(m)),
      h('td', { 'data-label': 'Vitality' }, vitality(m)),
      h('td', { class: 'nowrap', 'data-label': 'Updated' }, fmtTime(m.updated_at))))));
  body.append(h('div', { class: 'table-wrap' }, table));
}

// reflectPanel runs reflect as a dry run, shows the report, and applies it
// only when the person asks.
async function reflectPanel(toolbar) {
  const old = document.getElementById('reflect-panel');
  if (old) old.remove();
  const panel = section('Reflect: the sleep cycle');
  panel.id = 'reflect-panel';
  toolbar.closest('.page-head').after(panel);
  const out = h('div', {}, h('p', { class: 'muted' }, 'Running a dry run…'));
  panel.append(out);
  try {
    const rep = await post('/v1/reflect', { dry_run: true });
    clear(out).append(reflectReport(rep));
    const apply = h('button', { type: 'button', class: 'btn danger', id: 'reflect-apply', onclick: async () => {
      apply.disabled = true;
      try {
        const done = await post('/v1/reflect', { dry_run: false });
        clear(out).append(h('p', { class: 'ok' }, 'Applied.'), reflectReport(done));
      } catch (e) { out.append(errorBox(e)); }
    } }, 'Apply these changes');
    out.append(h('div', { class: 'row' }, apply, h('button', { type: 'button', class: 'btn ghost', onclick: () => panel.remove() }, 'Close')));
  } catch (e) { clear(out).append(errorBox(e)); }
}

function reflectReport(rep) {
  const n = (a) => (a || []).length;
  return h('div', { class: 'report' },
    h('p', {}, rep.dry_run ? 'Dry run: nothing changed yet. ' : 'Done. ',
      `Examined ${fmtNum(rep.examined)}; would change: ${n(rep.decayed)} decayed, ${n(rep.archived)} archived, ${n(rep.purged)} erased, ${n(rep.compacted)} compacted, ${n(rep.orphan_links)} orphan links.`),
    h('p', { class: 'muted' }, `Active ${fmtNum(rep.before?.active)} → ${fmtNum(rep.after?.active)}; mean vitality ${fmtNum(rep.before?.mean_vitality, 2)} → ${fmtNum(rep.after?.mean_vitality, 2)}.`),
    (rep.archived || []).length ? h('ul', {}, rep.archived.map((a) => h('li', {}, h('a', { href: `#/memory/${encodeURIComponent(a.id || a.memory_id || '')}` }, a.content || a.key || a.id || a.memory_id || 'memory'), ' — ', a.reason || a.phase || ''))) : null,
    h('details', {}, h('summary', {}, 'Full report'), h('pre', { class: 'pre' }, rep.text || '')));
}
