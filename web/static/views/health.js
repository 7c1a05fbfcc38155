// #/health: store, embedder and index status, counts, recent latency.
import { h, fmtTime, fmtNum, kv, section, errorBox, note, bar } from '../dom.js';
import { get, hasRoute } from '../api.js';
import { TYPES } from './common.js';

// parseRecallHistogram reads mnemo_recall_duration_seconds from the
// Prometheus text of /metrics: mean seconds per op since the server began.
export function parseRecallHistogram(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^mnemo_recall_duration_seconds_(sum|count)\{[^}]*op="(\w+)"[^}]*\}\s+([0-9.eE+-]+)/.exec(line);
    if (m) { out[m[2]] = out[m[2]] || {}; out[m[2]][m[1]] = parseFloat(m[3]); }
  }
  return out;
}

export async function render(root, ctx) {
  root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Health')));
  const grid = h('div', { class: 'cols2' });
  root.append(grid);
  const [hz, st] = await Promise.all([get('/healthz', {}, { withAgent: false }), get('/v1/stats')]);
  const v = st.vectors;
  const degraded = [];
  if (st.degraded) degraded.push('The lexical index is unavailable: recall falls back to substring matching.');
  if (v && v.unavailable) degraded.push(`Vectors unavailable: ${v.unavailable}`);
  if (v && v.pending) degraded.push(`${v.pending} memories wait for their vector (found lexically meanwhile).`);
  if (v && v.indexed === -1) degraded.push('The vector index is not loaded yet.');
  for (const r of st.degraded_reasons || []) degraded.push(r);

  grid.append(section('Server', h('p', { id: 'health-status' }, h('span', { class: ['badge', hz.status === 'ok' && !degraded.length ? 'ok' : 'warn'] }, degraded.length ? 'degraded' : hz.status), ` version ${hz.version || '?'}`),
    degraded.length ? h('ul', { class: 'warn-box', id: 'degraded' }, degraded.map((d) => h('li', {}, d))) : h('p', { class: 'muted' }, 'Nothing is degraded.')));
  grid.append(section('Store', kv([
    ['memories', fmtNum(st.memories)], ['archived', fmtNum(st.archived)], ['keys', fmtNum(st.keys)], ['tombstones', fmtNum(st.tombstones)],
    ['sessions', fmtNum(st.sessions)], ['oldest', fmtTime(st.oldest)], ['newest', fmtTime(st.newest)], ['lexical index', st.degraded ? 'unavailable' : 'ok']])));
  grid.append(section('Embedder and index', v ? kv([
    ['model', h('span', { class: 'mono' }, v.model)], ['dimension', fmtNum(v.dimension)],
    ['embedded', h('span', {}, bar(v.embedded, Math.max(1, v.embedded + v.pending)), ` ${fmtNum(v.embedded)}`)], ['pending', fmtNum(v.pending)],
    ['indexed', v.indexed === -1 ? 'not loaded yet' : fmtNum(v.indexed)],
    ['query cache hit rate', v.cache_hit_rate !== undefined ? `${Math.round(v.cache_hit_rate * 100)}%` : null]]) : note('This store keeps no vectors (lexical only).')));

  const byType = section('Memories by type');
  grid.append(byType);
  const lat = section('Recall latency');
  grid.append(lat);

  // Counts by type: the stats' by_type when the server gives it, else one
  // count query per well-known type (limit 1, read total).
  (async () => {
    let counts = st.by_type ? Object.entries(st.by_type) : null;
    if (!counts) {
      counts = await Promise.all(TYPES.map(async (t) => [t, (await get('/v1/memories', { types: t, limit: 1, include_archived: true })).total || 0]));
      byType.append(h('p', { class: 'muted small' }, 'Well-known types only (the server\'s stats have no by_type).'));
    }
    counts.sort((a, b) => b[1] - a[1]);
    const max = Math.max(1, ...counts.map(([, n]) => n));
    byType.append(h('div', { class: 'explain', id: 'by-type' }, counts.map(([t, n]) => h('div', { class: 'xrow' }, h('span', { class: 'xname' }, t), bar(n, max), h('span', { class: 'xval mono' }, fmtNum(n))))));
  })().catch((e) => byType.append(errorBox(e)));

  (async () => {
    const rows = [];
    if (st.recall_latency) rows.push(['server', `p50 ${fmtNum(st.recall_latency.p50_ms, 1)} ms · p95 ${fmtNum(st.recall_latency.p95_ms, 1)} ms`]);
    else if (ctx.can('admin') && hasRoute('GET', '/metrics')) {
      const text = await get('/metrics', {}, { withAgent: false, text: true });
      for (const [op, { sum, count }] of Object.entries(parseRecallHistogram(text))) {
        if (count) rows.push([`${op} (server, mean since start)`, `${fmtNum((sum / count) * 1000, 1)} ms over ${fmtNum(count)}`]);
      }
    }
    const mine = JSON.parse(sessionStorage.getItem('mnemo.latencies') || '[]');
    if (mine.length) {
      const ms = mine.map((x) => x.ms).sort((a, b) => a - b);
      rows.push(['this tab\'s searches', `${mine.length} · median ${fmtNum(ms[Math.floor(ms.length / 2)], 0)} ms · max ${fmtNum(ms[ms.length - 1], 0)} ms (HTTP round trip)`]);
    }
    lat.append(rows.length ? kv(rows) : note('No recall latency known: the server reports it on /metrics to admin keys; searches made here are timed too.'));
  })().catch((e) => lat.append(errorBox(e)));
}
