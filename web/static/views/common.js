// Pieces several views share.
import { h, badge, bar, fmtNum } from '../dom.js';

export const TYPES = ['identity', 'emotion', 'knowledge', 'event', 'preference', 'fact', 'pattern'];
export const LEVELS = ['public', 'internal', 'confidential', 'restricted'];

// Confidential and restricted memories are shown only as the API returns
// them; the UI adds a cover so that they do not sit in plain sight on a
// shared screen, and a Reveal button for the person who may read them.
export function contentBlock(m, { full = false } = {}) {
  const text = m.content || m.summary || '';
  const shown = full ? text : text.length > 220 ? `${text.slice(0, 220)}…` : text;
  const el = h(full ? 'div' : 'span', { class: ['content', full ? 'content-full' : ''] }, shown);
  if (m.security_level === 'confidential' || m.security_level === 'restricted') {
    el.classList.add('covered');
    const reveal = h('button', { type: 'button', class: 'btn tiny reveal', onclick: (e) => { e.preventDefault(); e.stopPropagation(); el.classList.remove('covered'); reveal.remove(); } }, `Reveal ${m.security_level}`);
    return h('span', { class: 'covered-wrap' }, el, reveal);
  }
  return el;
}

export function memoryBadges(m) {
  return h('span', { class: 'badges' },
    m.type ? badge(m.type, `type-${/^[a-z]+$/.test(m.type) ? m.type : 'other'}`) : null,
    m.pinned ? badge('pinned', 'pin') : null,
    m.archived ? badge('archived', 'arch') : null,
    m.security_level && m.security_level !== 'internal' ? badge(m.security_level, `sec-${m.security_level}`) : null,
    (m.tags || []).map((t) => badge(`#${t}`, 'tag')));
}

export function vitality(m) {
  return h('span', { class: 'vital', title: `vitality ${fmtNum(m.vitality)}` }, bar(m.vitality, 1, m.vitality < 0.3 ? 'low' : ''), h('small', {}, fmtNum(m.vitality, 2)));
}

export function memoryLink(id, label) {
  return h('a', { href: `#/memory/${encodeURIComponent(id)}` }, label || id);
}

export function shortId(id) { return id ? `${id.slice(0, 8)}…${id.slice(-4)}` : ''; }
