// #/search: recall or surface as the agent would, with each result's
// explain factors drawn as bars.
import { h, fmtNum, field, select, note, bar } from '../dom.js';
import { post, latencies } from '../api.js';
import { contentBlock, memoryBadges, shortId } from './common.js';

const PROFILES = [['', 'server default'], ['hybrid', 'hybrid'], ['seed001', 'seed001'], ['seed003', 'seed003'], ['lexical', 'lexical'], ['semantic', 'semantic']];

// explainView draws an explanation: the fusion inputs, then the formula's
// factors (multiplied: hybrid, surface) or weighted terms (added).
export function explainView(ex, best) {
  if (!ex) return h('p', { class: 'muted' }, 'No explanation.');
  const rows = [];
  const line = (name, value, max, extra, cls) => rows.push(h('div', { class: 'xrow' }, h('span', { class: 'xname' }, name), bar(value, max, cls), h('span', { class: 'xval mono' }, fmtNum(value, 3)), extra ? h('span', { class: 'xextra muted' }, extra) : null));
  line('lexical', ex.lexical, 1, null, 'lex');
  line('semantic', ex.semantic, 1, null, 'sem');
  line('relevance', ex.relevance, 1, 'fused', 'rel');
  const weighted = (ex.components || []).some((c) => c.weight);
  for (const c of ex.components || []) {
    if (!weighted && c.name === 'relevance') continue; // drawn above, as the fusion's result
    if (weighted) line(c.name, c.contribution ?? c.value * (c.weight || 0), 1, `${fmtNum(c.value, 2)} × ${fmtNum(c.weight, 2)}`, 'term');
    else line(c.name, c.value, Math.max(1, c.value), '×', 'factor');
  }
  // The components make the score before diversity; MMR's penalty comes
  // off it, and what is left orders the results.
  const before = ex.score + (ex.mmr_penalty || 0);
  const top = Math.max(best || 0, before, 1e-9);
  if (ex.mmr_penalty) {
    line('before diversity', before, top, weighted ? 'sum' : 'product', 'score');
    line('diversity', ex.mmr_penalty, top, 'like a result above it', 'neg');
  }
  line('score', ex.score, top, null, 'score');
  const m = ex.match;
  if (m) line('match', m.probability, 1, `coverage ${fmtNum(m.coverage, 2)} · margin ${fmtNum(m.margin, 3)}${m.elsewhere ? ` · elsewhere ${fmtNum(m.elsewhere, 1)}` : ''}`, 'rel');
  return h('div', { class: 'explain' },
    h('div', { class: 'xhead' }, h('span', { class: 'badge' }, `profile ${ex.profile}`), h('span', { class: 'badge' }, `formula ${ex.formula}`), ex.vector ? h('span', { class: ['badge', ex.vector === 'indexed' ? '' : 'warn'] }, `vector ${ex.vector}`) : null,
      h('span', { class: 'muted small' }, `${weighted ? 'sum of the weighted terms' : 'relevance × each factor'}${ex.mmr_penalty ? ', less diversity' : ''} = score`)),
    rows);
}

// matchBadge says how well a result, or the answer, matched the query.
function matchBadge(match) {
  return match ? h('span', { class: ['badge', `match-${match}`], title: 'how well it matches the query' }, `${match} match`) : null;
}

export async function render(root, ctx) {
  const p = ctx.params;
  const q = h('input', { type: 'search', name: 'q', id: 'search-q', value: p.get('q') || '', placeholder: 'What would the agent look for? (press / to focus)', autocomplete: 'off', required: true });
  const form = h('form', { class: 'search-form', id: 'search-form', onsubmit: (e) => {
    e.preventDefault();
    const d = new FormData(form);
    const next = {};
    for (const [k, v] of d.entries()) if (String(v).trim()) next[k] = String(v).trim();
    ctx.go('search', '', next);
  } },
  h('div', { class: 'search-main' }, q, h('button', { type: 'submit', class: 'btn primary' }, 'Search')),
  h('div', { class: 'grid4' },
    field('Mode', select('mode', [['surface', 'surface'], ['recall', 'recall']], p.get('mode') || 'surface'), 'recall records an access'),
    field('Profile', select('profile', PROFILES, p.get('profile') || '')),
    field('Limit', h('input', { type: 'number', name: 'limit', min: 1, max: 20, value: p.get('limit') || '10' })),
    field('Types', h('input', { name: 'types', value: p.get('types') || '', placeholder: 'knowledge,event' })),
    field('Tags', h('input', { name: 'tags', value: p.get('tags') || '' })),
    field('Session', h('input', { name: 'session', value: p.get('session') || '', placeholder: 'topic boost' })),
    field('Link hops', h('input', { type: 'number', name: 'hops', min: 0, max: 3, value: p.get('hops') || '' }))));
  root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Search')), form);
  if (sessionStorage.getItem('mnemo.focus') === 'search-q' || !p.get('q')) { sessionStorage.removeItem('mnemo.focus'); q.focus(); }
  if (!p.get('q')) { root.append(note('Surface ranks exactly as recall does without recording an access; recall counts as a use of each result, as when the agent asks.')); return; }

  const body = {
    query: p.get('q'), explain: true, limit: parseInt(p.get('limit') || '10', 10),
    profile: p.get('profile') || undefined, session: p.get('session') || undefined,
    types: p.get('types') ? p.get('types').split(',').map((s) => s.trim()) : undefined,
    tags: p.get('tags') ? p.get('tags').split(',').map((s) => s.trim()) : undefined,
    traverse_hops: p.get('hops') ? parseInt(p.get('hops'), 10) : undefined,
  };
  const mode = p.get('mode') === 'recall' ? 'recall' : 'surface';
  const out = h('div', { id: 'search-results' });
  root.append(out);
  const t0 = performance.now();
  const res = await post(`/v1/${mode}`, body);
  const ms = performance.now() - t0;
  latencies.push({ at: Date.now(), ms, mode });
  sessionStorage.setItem('mnemo.latencies', JSON.stringify([...JSON.parse(sessionStorage.getItem('mnemo.latencies') || '[]'), { at: Date.now(), ms, mode }].slice(-50)));
  const results = res.results || [];
  out.append(h('p', { class: 'muted', id: 'search-summary' }, `${results.length} results in ${Math.round(ms)} ms (${mode})`,
    res.terms ? ` · terms: ${res.terms.join(' ')}` : '', res.topic ? ` · topic: ${res.topic}` : '', ' ', matchBadge(res.match)));
  if (res.hint) out.append(h('div', { class: 'warn-box', id: 'search-hint' }, res.hint));
  else if (res.match === 'none' && results.length) out.append(note('Nothing here matches the query: these are only the nearest memories.'));
  if (res.degraded) out.append(h('div', { class: 'warn-box' }, `Degraded: ${res.reason || 'part of the pipeline fell back'}`));
  const best = Math.max(0, ...results.map((r) => r.relevance ?? r.score ?? 0));
  out.append(h('ol', { class: 'results' }, results.map((r, i) => h('li', { class: 'result', dataset: { id: r.id } },
    h('div', { class: 'result-head' }, h('span', { class: 'rank' }, `#${i + 1}`), h('span', { class: 'score mono', title: 'the score the results are ordered by' }, fmtNum(r.score, 4)),
      r.relevance !== undefined && Math.abs(r.relevance - r.score) > 5e-5 ? h('span', { class: 'relevance mono muted small', title: 'before diversity' }, `relevance ${fmtNum(r.relevance, 4)}`) : null,
      matchBadge(r.match),
      h('a', { href: `#/memory/${encodeURIComponent(r.id)}` }, r.key || shortId(r.id)), memoryBadges(r)),
    h('div', { class: 'result-body' }, contentBlock(r)),
    h('details', { class: 'why', open: i < 3 }, h('summary', {}, 'Why this rank'), explainView(r.explain, best))))));
  if (res.linked && res.linked.length) {
    out.append(h('h2', {}, 'Reached by links'), h('ul', { class: 'results' }, res.linked.map((l) => h('li', {},
      h('a', { href: `#/graph?node=${encodeURIComponent(l.id || (l.memory && l.memory.id) || '')}` }, l.key || (l.memory && l.memory.key) || shortId(l.id || '')), ' ',
      h('span', { class: 'muted' }, l.via ? `via ${typeof l.via === 'string' ? l.via : JSON.stringify(l.via)}` : ''), ' ', l.content ? contentBlock(l) : null))));
  }
  if (!results.length) out.append(h('p', { class: 'empty' }, 'Nothing recalled.'));
}
