// #/graph?node=ID: the L2 graph around an event or memory, drawn in SVG
// with our own layout; select a node to see it, expand it to add its
// neighbours.
import { h, s, clear, put, fmtTime, pretty, errorBox, note, kv } from '../dom.js';
import { get, ApiError } from '../api.js';
import { layout, bounds } from '../layout.js';
import { shortId } from './common.js';

async function describe(id) {
  try {
    const e = await get(`/v1/events/${encodeURIComponent(id)}`);
    const text = e.data && typeof e.data === 'object' ? e.data.text || e.data.content || e.data.message || '' : typeof e.data === 'string' ? e.data : '';
    return { kind: 'event', label: e.type, text, detail: e };
  } catch (err) { if (!(err instanceof ApiError) || err.status >= 500) throw err; }
  try {
    const m = await get(`/v1/memories/${encodeURIComponent(id)}`);
    return { kind: 'memory', label: m.key || (m.content || m.type || '').slice(0, 24), text: m.content, detail: m };
  } catch (err) { if (!(err instanceof ApiError) || err.status >= 500) throw err; }
  return { kind: 'gone', label: shortId(id), text: 'not found (gone, or not this agent\'s)', detail: null };
}

export async function render(root, ctx) {
  const start = ctx.params.get('node') || '';
  root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Graph'), h('span', { class: 'muted' }, 'L2 relations between events and memories')));
  const pick = h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); ctx.go('graph', '', { node: input.value.trim() }); } });
  const input = h('input', { name: 'node', value: start, placeholder: 'event or memory id', size: 40, 'aria-label': 'Start node' });
  pick.append(input, h('button', { type: 'submit', class: 'btn' }, 'Draw'));
  root.append(pick);
  if (!start) {
    const r = await get('/v1/events', { limit: 30 });
    const evs = r.events || [];
    root.append(note('Pick a start: an event below, or the links of a memory (its page has "Open in graph").'),
      evs.length ? h('ul', { class: 'pick-list' }, evs.map((e) => h('li', {}, h('a', { href: `#/graph?node=${encodeURIComponent(e.id)}` }, e.type), ' ', h('span', { class: 'muted' }, `${e.source || ''} · ${fmtTime(e.ts)}`)))) : h('p', { class: 'empty' }, 'No events yet.'));
    return;
  }

  const nodes = new Map();
  const edges = new Map();
  let selected = start;
  const wrap = h('div', { class: 'graph-wrap' });
  const svgBox = h('div', { class: 'graph-canvas', id: 'graph' });
  const side = h('aside', { class: 'side wide', id: 'graph-side' });
  wrap.append(svgBox, side);
  const status = h('p', { class: 'muted', id: 'graph-status', 'aria-live': 'polite' });
  root.append(wrap, status);

  const addNode = async (id, parent) => {
    if (nodes.has(id)) return;
    const nd = { id, parent, expanded: false, kind: '?', label: shortId(id), text: '' };
    nodes.set(id, nd);
    Object.assign(nd, await describe(id));
  };

  const expand = async (id) => {
    const nd = nodes.get(id);
    status.textContent = 'Expanding…';
    const r = await get('/v1/events/graph/neighbours', { node: id, direction: 'both', limit: 50 });
    const fresh = [];
    for (const rel of r.relations || []) {
      edges.set(`${rel.source}|${rel.target}|${rel.type}`, rel);
      for (const end of [rel.source, rel.target]) if (!nodes.has(end)) fresh.push(end);
    }
    await Promise.all([...new Set(fresh)].map((x) => addNode(x, id)));
    if (nd) nd.expanded = true;
    status.textContent = `${nodes.size} nodes, ${edges.size} relations`;
    draw();
  };

  const draw = () => {
    const list = [...nodes.values()];
    const es = [...edges.values()];
    layout(list, es, { iterations: 200 });
    const b = bounds(list);
    const svg = s('svg', { viewBox: `${b.x} ${b.y} ${b.w} ${b.h}`, class: 'graph-svg', role: 'group', 'aria-label': 'Relation graph' },
      s('defs', {}, s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: '22', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' }, s('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow' }))));
    // Parallel relations (A→B precedes, A→B causes) are bent apart.
    const pairCount = new Map();
    for (const e of es) {
      const a = nodes.get(e.source);
      const c = nodes.get(e.target);
      if (!a || !c) continue;
      const pk = [e.source, e.target].sort().join('|');
      const k = pairCount.get(pk) || 0;
      pairCount.set(pk, k + 1);
      const mx = (a.x + c.x) / 2;
      const my = (a.y + c.y) / 2;
      const dx = c.x - a.x;
      const dy = c.y - a.y;
      const len = Math.hypot(dx, dy) || 1;
      const bend = k === 0 ? 0 : (k % 2 ? 1 : -1) * Math.ceil(k / 2) * 28;
      const qx = mx - (dy / len) * bend;
      const qy = my + (dx / len) * bend;
      svg.append(s('g', { class: 'edge' }, s('path', { d: `M${a.x},${a.y} Q${qx},${qy} ${c.x},${c.y}`, 'marker-end': 'url(#arrow)' }),
        s('text', { x: (mx + qx) / 2, y: (my + qy) / 2 - 4, class: 'edge-label' }, e.type)));
    }
    for (const nd of list) {
      const g = s('g', { class: ['node', `k-${nd.kind}`, nd.id === selected ? 'sel' : '', nd.expanded ? 'expanded' : ''], transform: `translate(${nd.x},${nd.y})`, tabindex: '0', role: 'button', 'aria-label': `${nd.kind} ${nd.label}${nd.expanded ? '' : ' (press Enter to expand)'}`, dataset: { id: nd.id },
        onclick: () => select(nd.id), ondblclick: () => expand(nd.id).catch(fail),
        onkeydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(nd.id); if (!nd.expanded) expand(nd.id).catch(fail); } } },
      s('circle', { r: nd.id === start ? 16 : 12 }),
      nd.expanded ? null : s('text', { class: 'plus', y: 4 }, '+'),
      s('text', { class: 'node-label', y: 28 }, (nd.label || '').slice(0, 28)));
      svg.append(g);
    }
    clear(svgBox).append(svg, h('p', { class: 'legend muted small' }, h('span', { class: 'dot k-event' }), ' event ', h('span', { class: 'dot k-memory' }), ' memory · "+" not expanded yet · click to select, double-click or Enter to expand'));
    sidePanel();
  };

  const select = (id) => { selected = id; draw(); };
  const fail = (e) => { status.textContent = ''; status.append(errorBox(e)); };

  const sidePanel = () => {
    clear(side);
    const nd = nodes.get(selected);
    if (!nd) return;
    put(side, h('h2', {}, nd.kind === 'event' ? `Event ${nd.label}` : nd.kind === 'memory' ? 'Memory' : 'Node'),
      nd.text ? h('p', { class: 'content' }, nd.text) : null,
      h('div', { class: 'row' },
        h('button', { type: 'button', class: 'btn primary', id: 'expand-btn', disabled: nd.expanded, onclick: () => expand(nd.id).catch(fail) }, nd.expanded ? 'Expanded' : 'Expand neighbours'),
        nd.kind === 'memory' ? h('a', { class: 'btn', href: `#/memory/${encodeURIComponent(nd.id)}` }, 'Open memory') : null),
      nd.detail ? kv(nd.kind === 'event'
        ? [['id', h('span', { class: 'mono' }, nd.id)], ['type', nd.detail.type], ['source', nd.detail.source], ['time', fmtTime(nd.detail.ts)], ['seq', String(nd.detail.seq)]]
        : [['id', h('span', { class: 'mono' }, nd.id)], ['key', nd.detail.key], ['type', nd.detail.type]]) : null,
      nd.detail && nd.kind === 'event' ? h('details', {}, h('summary', {}, 'Data'), h('pre', { class: 'pre json' }, pretty(nd.detail.data))) : null,
      h('h3', {}, 'Relations'),
      h('ul', { class: 'links' }, [...edges.values()].filter((e) => e.source === nd.id || e.target === nd.id).map((e) => {
        const other = e.source === nd.id ? e.target : e.source;
        const o = nodes.get(other);
        return h('li', {}, e.source === nd.id ? '→ ' : '← ', h('span', { class: 'badge' }, e.type), ' ',
          h('button', { type: 'button', class: 'link', onclick: () => select(other) }, o ? o.label : shortId(other)), e.confidence !== undefined && e.confidence !== 1 ? h('small', { class: 'muted' }, ` ${e.confidence}`) : null);
      })));
  };

  await addNode(start);
  await expand(start);
}
