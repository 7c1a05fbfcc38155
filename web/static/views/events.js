// #/events: the L1 timeline with filters, L4 summaries, L5 capabilities,
// and the user profile with its update schedule.
import { h, fmtTime, fmtNum, pretty, field, select, note, kv, section, bar } from '../dom.js';
import { get } from '../api.js';

const TABS = [['timeline', 'Timeline (L1)'], ['summaries', 'Summaries (L4)'], ['capabilities', 'Capabilities (L5)'], ['profile', 'Profile']];
const iso = (local) => (local ? new Date(local).toISOString() : undefined);

export async function render(root, ctx) {
  const p = ctx.params;
  const tab = p.get('tab') || 'timeline';
  root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Events')),
    h('nav', { class: 'tabs', 'aria-label': 'Event layers' }, TABS.map(([k, label]) => h('a', { href: `#/events?tab=${k}`, 'aria-current': k === tab ? 'page' : false }, label))));
  const body = h('div', {});
  root.append(body);
  if (tab === 'summaries') return summaries(body, ctx);
  if (tab === 'capabilities') return capabilities(body);
  if (tab === 'profile') return profile(body);
  return timeline(body, ctx);
}

async function timeline(body, ctx) {
  const p = ctx.params;
  const f = h('form', { class: 'filters inline', onsubmit: (e) => {
    e.preventDefault();
    const next = { tab: 'timeline' };
    for (const [k, v] of new FormData(f).entries()) if (String(v).trim()) next[k] = String(v).trim();
    ctx.go('events', '', next);
  } },
  field('Types', h('input', { name: 'types', value: p.get('types') || '', placeholder: 'DeployDone,TaskFailed' })),
  field('Sources', h('input', { name: 'sources', value: p.get('sources') || '' })),
  field('From', h('input', { type: 'datetime-local', name: 'from', value: p.get('from') || '' })),
  field('To', h('input', { type: 'datetime-local', name: 'to', value: p.get('to') || '' })),
  h('div', { class: 'filter-actions' }, h('button', { type: 'submit', class: 'btn primary' }, 'Apply')));
  body.append(f);
  const list = h('ol', { class: 'timeline', id: 'timeline' });
  const more = h('button', { type: 'button', class: 'btn', hidden: true }, 'Load more');
  body.append(list, more);
  let cursor = p.get('cursor') || undefined;
  let lastDay = '';
  const load = async () => {
    more.disabled = true;
    const r = await get('/v1/events', { types: p.get('types'), sources: p.get('sources'), from: iso(p.get('from')), to: iso(p.get('to')), cursor, limit: 100 });
    for (const e of r.events || []) {
      const day = new Date(e.ts).toDateString();
      if (day !== lastDay) { list.append(h('li', { class: 'day' }, day)); lastDay = day; }
      list.append(h('li', { class: 'event', dataset: { id: e.id } },
        h('div', { class: 'row' }, h('span', { class: 'mono muted' }, new Date(e.ts).toLocaleTimeString()), h('strong', {}, e.type),
          e.source ? h('span', { class: 'badge' }, e.source) : null, h('span', { class: 'muted small' }, `#${e.seq}`),
          h('a', { class: 'btn tiny', href: `#/graph?node=${encodeURIComponent(e.id)}` }, 'Graph')),
        e.data !== undefined ? h('details', {}, h('summary', {}, eventText(e)), h('pre', { class: 'pre json' }, pretty(e.data)), e.metadata ? h('pre', { class: 'pre json' }, pretty(e.metadata)) : null) : null));
    }
    cursor = r.next;
    more.hidden = !cursor;
    more.disabled = false;
    if (!list.children.length) list.append(h('li', { class: 'empty' }, 'No events match.'));
  };
  more.addEventListener('click', () => load());
  await load();
}

function eventText(e) {
  const d = e.data;
  const t = d && typeof d === 'object' ? d.text || d.content || d.message || d.summary : typeof d === 'string' ? d : '';
  return t ? String(t).slice(0, 160) : 'data';
}

async function summaries(body, ctx) {
  const period = ctx.params.get('period') || 'day';
  body.append(h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); ctx.go('events', '', { tab: 'summaries', period: e.target.period.value }); } },
    field('Period', select('period', ['hour', 'day', 'week', 'month', 'year'], period)), h('button', { type: 'submit', class: 'btn' }, 'Show')));
  const r = await get('/v1/events/summaries', { period, limit: 30 });
  const list = r.summaries || [];
  if (!list.length) { body.append(note('No summaries for this period yet (serve writes them as periods end; POST /v1/events/summaries makes one).')); return; }
  for (const sm of list) {
    const types = Object.entries(sm.types || {}).sort((a, b) => b[1] - a[1]);
    const max = Math.max(1, ...types.map(([, n]) => n));
    body.append(section(`${sm.period} from ${fmtTime(sm.start)}`,
      kv([['events', fmtNum(sm.events)], ['errors', fmtNum(sm.errors)], ['tasks', sm.tasks ? `${sm.tasks.succeeded} ok, ${sm.tasks.failed} failed` : null],
        ['completion', sm.completion_rate !== undefined ? `${Math.round(sm.completion_rate * 100)}%` : null], ['generator', sm.generator]]),
      h('div', { class: 'explain' }, types.map(([t, n]) => h('div', { class: 'xrow' }, h('span', { class: 'xname' }, t), bar(n, max), h('span', { class: 'xval mono' }, String(n))))),
      (sm.key_events || []).length ? h('details', {}, h('summary', {}, 'Key events'), h('pre', { class: 'pre json' }, pretty(sm.key_events))) : null,
      [...(sm.trends || []), ...(sm.patterns || []), ...(sm.suggestions || [])].length ? h('ul', {}, [...(sm.trends || []), ...(sm.patterns || []), ...(sm.suggestions || [])].map((x) => h('li', {}, typeof x === 'string' ? x : pretty(x)))) : null,
      sm.note ? h('p', { class: 'muted' }, sm.note) : null));
  }
}

async function capabilities(body) {
  const r = await get('/v1/events/capabilities', { limit: 50 });
  const caps = r.capabilities || [];
  if (!caps.length) { body.append(note('No capabilities learnt yet: they come from repeated task successes (L5).')); return; }
  body.append(h('ul', { class: 'cards' }, caps.map((c) => h('li', { class: 'card' },
    h('h3', {}, c.name || c.task_type || c.id || 'capability'),
    c.description ? h('p', {}, c.description) : null,
    h('pre', { class: 'pre json' }, pretty(c))))));
}

async function profile(body) {
  const r = await get('/v1/profile');
  const pr = r.profile || {};
  const sch = r.schedule || {};
  const traits = Object.entries(pr.traits || {});
  const emotions = Object.entries(pr.emotions || {});
  const num = (v) => (typeof v === 'number' ? v : 0);
  body.append(section(`Profile v${r.version ?? 0}`,
    kv([['interests', (pr.interests || []).map((x) => (typeof x === 'string' ? x : x.name || pretty(x))).join(', ') || null],
      ['needs', (pr.needs || []).map((x) => (typeof x === 'string' ? x : x.name || pretty(x))).join(', ') || null], ['updated', fmtTime(pr.updated_at)]]),
    traits.length ? [h('h3', {}, 'Traits'), h('div', { class: 'explain' }, traits.map(([k, v]) => h('div', { class: 'xrow' }, h('span', { class: 'xname' }, k), bar(num(v), 1), h('span', { class: 'xval' }, typeof v === 'number' ? fmtNum(v, 2) : String(v)))))] : null,
    emotions.length ? [h('h3', {}, 'Emotions'), h('div', { class: 'explain' }, emotions.map(([k, v]) => h('div', { class: 'xrow' }, h('span', { class: 'xname' }, k), bar(num(v), 1), h('span', { class: 'xval' }, typeof v === 'number' ? fmtNum(v, 2) : String(v)))))] : null));
  body.append(section('Update schedule', kv([
    ['phase', sch.phase], ['stage', sch.stage !== undefined ? String(sch.stage) : null], ['every', sch.every !== undefined ? `${sch.every} interactions` : null],
    ['interactions', fmtNum(sch.interactions)], ['updates', fmtNum(sch.updates)], ['since last update', fmtNum(sch.since_update)],
    ['next in', sch.next_in !== undefined ? `${sch.next_in} interactions` : null], ['next at', sch.next_at ? fmtTime(sch.next_at) : null],
    ['last update', sch.last_update ? fmtTime(sch.last_update) : null], ['why', sch.reason]])));
  if ((r.pending || []).length) body.append(section('Pending', h('pre', { class: 'pre json' }, pretty(r.pending))));
}
