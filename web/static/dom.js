// DOM helpers. Every piece of text goes in through textContent or a text
// node: memory content is untrusted, and nothing here ever parses HTML.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'text') el.textContent = String(value);
    else if (name === 'class') el.setAttribute('class', Array.isArray(value) ? value.filter(Boolean).join(' ') : value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'style' || name.startsWith('on')) throw new Error(`refusing attribute ${name}`); // CSP: no inline style or handlers
    else if (name === 'value' || name === 'checked' || name === 'selected' || name === 'disabled') el[name] = value;
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

// put appends children to el, skipping the missing ones (undefined, null,
// false): the DOM's own append would write them out as text ("null").
export function put(el, ...children) {
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// h('a', {href: '#/x', class: 'btn'}, 'text', child, [more]) builds an element.
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

// s() is h() for SVG elements.
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

export function fmtTime(t) {
  if (!t) return '—';
  const d = new Date(t);
  if (Number.isNaN(d.getTime())) return String(t);
  return d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function fmtNum(n, digits = 3) {
  if (n === undefined || n === null || Number.isNaN(n)) return '—';
  if (Number.isInteger(n)) return n.toLocaleString();
  return Number(n).toFixed(digits);
}

// count is n and the noun that agrees with it: "1 memory", "2 memories".
export function count(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

export function pretty(v) {
  if (v === undefined) return '';
  try { return JSON.stringify(v, null, 2); } catch { return String(v); }
}

// bar draws a horizontal bar for value on 0..max (CSSOM width: allowed by
// the CSP, unlike a style attribute).
export function bar(value, max = 1, cls = '') {
  const v = Number(value) || 0;
  const pct = Math.max(0, Math.min(100, max > 0 ? (v / max) * 100 : 0));
  const fill = h('span', { class: ['bar-fill', cls] });
  fill.style.width = pct.toFixed(1) + '%';
  return h('span', { class: 'bar', role: 'img', 'aria-label': fmtNum(v) }, fill);
}

export function badge(text, cls = '') {
  return h('span', { class: ['badge', cls] }, text);
}

export function field(label, control, hint) {
  return h('label', { class: 'field' }, h('span', { class: 'field-label' }, label), control, hint ? h('small', { class: 'hint' }, hint) : null);
}

export function kv(rows) {
  return h('dl', { class: 'kv' }, rows.filter(Boolean).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v ?? '—')]));
}

export function section(title, ...children) {
  return h('section', { class: 'panel' }, h('h2', {}, title), ...children);
}

export function errorBox(err) {
  return h('div', { class: 'error', role: 'alert' }, err && err.message ? err.message : String(err));
}

export function note(text) {
  return h('p', { class: 'note' }, text);
}

export function select(name, options, value) {
  return h('select', { name }, options.map((o) => {
    const [v, label] = Array.isArray(o) ? o : [o, o || 'any'];
    return h('option', { value: v, selected: v === value }, label);
  }));
}
