// #/context: what an agent gets at the start of a turn or run: sessions'
// working memory, open runs and their compaction, and the boot, snapshot
// and default read texts exactly as the API returns them, with tokens.
import { h, fmtTime, fmtNum, pretty, kv, section, errorBox, note, field } from '../dom.js';
import { get, post } from '../api.js';

function textBlock(id, text, meta) {
  return [h('p', { class: 'muted small' }, meta), h('pre', { class: 'pre prompt', id }, text || '')];
}

function tokens(n, limit) {
  if (n === undefined || n === null) return 'tokens: not reported by the server';
  return `${fmtNum(n)} tokens${limit ? ` of ${fmtNum(limit)}` : ''}`;
}

export async function render(root, ctx) {
  const focus = ctx.params.get('focus') || '';
  root.append(h('div', { class: 'page-head' }, h('h1', {}, 'Context')));
  const grid = h('div', { class: 'cols2' });
  root.append(grid);
  const left = h('div', {});
  const right = h('div', {});
  grid.append(left, right);

  const sessions = section('Sessions: working memory');
  left.append(sessions);
  const runs = section('Open runs');
  left.append(runs);
  const boot = section('Boot (warm start)');
  const snap = section('Snapshot');
  const read = section('Default read');
  right.append(boot, snap, read);

  const jobs = [
    (async () => {
      const r = await get('/v1/sessions');
      const list = r.sessions || [];
      if (!list.length) return sessions.append(note('No session has working memory now.'));
      for (const wm of list) {
        sessions.append(h('article', { class: 'card' }, h('h3', {}, wm.session_id),
          kv([['topic', wm.current_topic], ['turns', fmtNum(wm.turn_count)], ['emotion', wm.last_emotion], ['updated', fmtTime(wm.updated_at)], ['expires', fmtTime(wm.expires_at)]]),
          (wm.facts || []).length ? h('ul', {}, wm.facts.map((f) => h('li', {}, typeof f === 'string' ? f : f.text || pretty(f)))) : null,
          Object.keys(wm.context_variables || {}).length ? h('pre', { class: 'pre json' }, pretty(wm.context_variables)) : null));
      }
    })().catch((e) => sessions.append(errorBox(e))),
    (async () => {
      const r = await get('/v1/runs');
      const list = r.runs || [];
      if (!list.length) return runs.append(note('No open runs.'));
      for (const run of list) {
        const rounds = run.rounds || [];
        const earlier = run.earlier || [];
        runs.append(h('article', { class: 'card' }, h('h3', {}, run.run_id),
          kv([['trigger', run.trigger ? run.trigger.type : null], ['focus', run.focus], ['tokens', tokens(run.tokens, run.token_limit)],
            ['rounds', `${rounds.length} kept, ${fmtNum(run.omitted_rounds || 0)} compacted`], ['opened', fmtTime(run.opened_at)], ['updated', fmtTime(run.updated_at)]]),
          earlier.length ? h('details', {}, h('summary', {}, `Compacted: ${earlier.length} summaries`), h('pre', { class: 'pre' }, earlier.map((x) => (typeof x === 'string' ? x : x.text || x.summary || pretty(x))).join('\n\n'))) : null,
          rounds.length ? h('details', {}, h('summary', {}, 'Rounds'), h('pre', { class: 'pre json' }, pretty(rounds))) : null));
      }
    })().catch((e) => runs.append(errorBox(e))),
    (async () => {
      const r = await get('/v1/boot', { format: 'narrative' });
      boot.append(...textBlock('boot-text', r.text, `${tokens(r.tokens)} · ${fmtNum((r.text || '').length)} characters`));
    })().catch((e) => boot.append(errorBox(e))),
    (async () => {
      const f = h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); ctx.go('context', '', { focus: e.target.focus.value }); } },
        field('Focus', h('input', { name: 'focus', value: focus, placeholder: 'what the run is about' })), h('button', { type: 'submit', class: 'btn' }, 'Render'));
      snap.append(f);
      const r = await post('/v1/snapshot', { trigger: { type: 'inspector' }, focus: focus || undefined });
      snap.append(...textBlock('snapshot-text', r.text, `${tokens(r.tokens, r.token_limit)}${r.omitted ? ` · ${r.omitted} omitted` : ''}${r.degraded ? ` · degraded: ${r.reason}` : ''}`));
    })().catch((e) => snap.append(errorBox(e))),
    (async () => {
      const r = await post('/v1/read', { token_limit: 500 });
      read.append(...textBlock('read-text', r.text, `${tokens(r.tokens, r.token_limit)}${r.omitted ? ` · ${r.omitted} omitted` : ''}`));
    })().catch((e) => read.append(errorBox(e))),
  ];
  await Promise.all(jobs);
}
