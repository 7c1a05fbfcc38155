// Browser tests of mnemo's web inspector: node --test, puppeteer-core and
// Debian's chromium (never a downloaded browser).
//
//   MNEMO_UI_URL   the UI's base URL (`mnemo serve` serves it at /);
//                  its API answers on the same origin
//   MNEMO_KEY_A    a key of tenant A with read, write and admin
//   MNEMO_KEY_AR   a key of tenant A with read only
//   MNEMO_KEY_B    a key of tenant B with read, write and admin
//   MNEMO_UI_KEYLESS_URL  the UI of a server without API keys, on loopback
//   MNEMO_UI_SCREENSHOTS  a directory to save the main pages' screenshots in
//   CHROMIUM       the browser (default /usr/bin/chromium)
// web/test/run.sh sets all of them up.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
// Every wait of the browser's stretches with the machine's load (QUAL-3).
import { ms } from '../../scripts/testwait.mjs';

const base = (process.env.MNEMO_UI_URL || 'http://127.0.0.1:7078/').replace(/\/?$/, '/');
const KEY_A = process.env.MNEMO_KEY_A || '';
const KEY_AR = process.env.MNEMO_KEY_AR || '';
const KEY_B = process.env.MNEMO_KEY_B || '';
const keyless = process.env.MNEMO_UI_KEYLESS_URL || '';
const shots = process.env.MNEMO_UI_SCREENSHOTS || '';
const agent = `ui-${Date.now().toString(36)}`; // fresh on every run: reruns on one server do not collide
const XSS = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
const SECRET_A = `acme-only ${agent} marmalade`;
const SECRET_B = `globex-only ${agent} zeppelin`;

async function api(method, path, body, key = KEY_A) {
  const hd = { Accept: 'application/json' };
  if (key) hd.Authorization = `Bearer ${key}`;
  if (body !== undefined) hd['Content-Type'] = 'application/json';
  const res = await fetch(new URL(path, base), { method, headers: hd, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const remember = (draft, key) => api('POST', '/v1/memories', { agent_id: agent, ...draft }, key);
const event = (ev, key) => api('POST', '/v1/events', { agent_id: agent, ...ev }, key);

let browser;
const seeded = {};
const violations = []; // CSP violations and page errors, from every page

before(async () => {
  seeded.pref = await remember({ key: '/user/preference/editor', content: 'The user edits code in Vim', tags: ['prefs'], type: 'preference' });
  await remember({ key: '/user/preference/editor', content: 'The user edits code in Helix now', tags: ['prefs'], type: 'preference' });
  seeded.deploy = await remember({ content: 'Deploys happen on Tuesdays after the standup', tags: ['ops'] });
  seeded.secret = await remember({ key: '/notes/acme', content: SECRET_A, tags: ['tenant'] });
  seeded.xss = await remember({ key: '/attack/xss', content: XSS, tags: ['xss'] });
  seeded.archive = await remember({ key: '/ops/runbook', content: 'The runbook lives in the ops wiki', tags: ['ops'] });
  seeded.prune = await remember({ key: '/ops/old-pager', content: 'The old pager rota was on paper', tags: ['prunable'] });
  seeded.b = await remember({ key: '/notes/globex', content: SECRET_B }, KEY_B);
  seeded.e1 = await event({ type: 'DeployBegun', source: 'ci', data: { text: 'deploy of v42 started' } });
  seeded.e2 = await event({ type: 'DeployDone', source: 'ci', data: { text: 'deploy of v42 finished' } });
  seeded.e3 = await event({ type: 'PagerQuiet', source: 'pager', data: { text: 'no pages after the deploy' } });
  seeded.bare = await event({ type: 'AgentStopped', source: 'ci' }); // no data, no text
  await api('POST', '/v1/events/graph/links', { agent_id: agent, source: seeded.e2.id, target: seeded.e3.id, type: 'causes' });
  await api('POST', '/v1/events/graph/links', { agent_id: agent, source: seeded.e3.id, target: seeded.deploy.id, type: 'related' });
  await event({ type: 'GlobexThing', source: 'b', data: { text: SECRET_B } }, KEY_B);
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--no-first-run', '--disable-extensions'],
    timeout: ms(30000),
    protocolTimeout: ms(180000),
  });
});

after(async () => {
  if (browser) await browser.close();
});

async function newPage(width = 1280, height = 860) {
  const page = await browser.newPage();
  page.setDefaultTimeout(ms(30000));
  await page.setViewport({ width, height });
  page.on('pageerror', (e) => violations.push(`pageerror: ${e.message}`));
  page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) violations.push(m.text()); });
  return page;
}

// nav goes to a route and waits until its view has rendered.
async function nav(page, hash) {
  await page.evaluate((hsh) => { delete document.body.dataset.ready; location.hash = hsh; }, hash);
  await page.waitForSelector('body[data-ready]', { timeout: ms(15000) });
}

async function signIn(page, key, agentId = agent) {
  await page.goto(base, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#signin-key');
  await page.type('#signin-key', key);
  await page.type('#signin-agent', agentId);
  await Promise.all([page.waitForSelector('body[data-ready]', { timeout: ms(15000) }), page.click('#signin button[type=submit]')]);
}

async function shot(page, name) {
  if (!shots) return;
  mkdirSync(shots, { recursive: true });
  await new Promise((r) => setTimeout(r, 150));
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

const mainText = (page) => page.$eval('main', (m) => m.innerText);

// strays returns the text that a missing value left in el: a line that is
// only null, undefined or NaN.
const strays = (page, sel) => page.$eval(sel, (el) => el.innerText.split('\n').map((l) => l.trim()).filter((l) => /^(null|undefined|NaN)$/.test(l)));

test('sign in and browse memories, filters and the key tree', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await page.waitForSelector('#mem-table');
  const text = await mainText(page);
  assert.match(text, /Deploys happen on Tuesdays/);
  assert.deepEqual(await page.$$eval('#who-scopes .badge', (b) => b.map((x) => x.textContent)), ['read', 'write', 'admin']);
  // The key tree lists /ops/ and /user/; picking /ops/ filters by prefix.
  await page.waitForSelector('.tree button.dir');
  const dirs = await page.$$eval('.tree button.dir', (b) => b.map((x) => x.textContent));
  assert.ok(dirs.some((d) => d.includes('/ops/')), dirs.join());
  await page.keyboard.press('Escape');
  await shot(page, 'memories');
  await nav(page, '#/memories?prefix=%2Fops%2F');
  await page.waitForSelector('#mem-table');
  const rows = await page.$$eval('#mem-table tbody tr', (r) => r.map((x) => x.innerText));
  assert.equal(rows.length, 2, rows.join('\n'));
  await nav(page, '#/memories?type=preference');
  assert.match(await page.$eval('#page-info', (e) => e.textContent), /^1–1 of 1/);
  // "/" focuses the search box from anywhere.
  await page.click('h1');
  await page.keyboard.press('/');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'search-q');
  await page.close();
});

test('search as the agent would and read the explain breakdown', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, `#/search?q=${encodeURIComponent('when do deploys happen')}&profile=hybrid`);
  await page.waitForSelector('#search-results .result .explain');
  const first = await page.$eval('#search-results .result', (r) => r.innerText);
  assert.match(first, /Deploys happen on Tuesdays/);
  const factors = await page.$$eval('#search-results .result:first-child .xrow', (rows) => rows.map((r) => ({
    name: r.querySelector('.xname').textContent,
    width: parseFloat(r.querySelector('.bar-fill').style.width),
  })));
  const names = factors.map((f) => f.name);
  for (const n of ['lexical', 'semantic', 'relevance', 'decay', 'score']) assert.ok(names.includes(n), names.join());
  assert.ok(factors.find((f) => f.name === 'score').width > 0);
  assert.ok(await page.$('#search-results .badge') !== null);
  // The results come in the order of the score they show (after
  // diversity), each with how well it matched, and so does the answer.
  const scores = await page.$$eval('#search-results .result .result-head .score', (e) => e.map((x) => parseFloat(x.textContent)));
  assert.ok(scores.length > 1 && scores.every((v, i) => i === 0 || v <= scores[i - 1]), scores.join());
  assert.equal(await page.$$eval('#search-results .result .result-head [class*="match-"]', (e) => e.length), scores.length);
  assert.match(await page.$eval('#search-summary', (e) => e.textContent), /(strong|weak|none) match/);
  await shot(page, 'search');
  // Another profile draws weighted terms.
  await nav(page, `#/search?q=${encodeURIComponent('deploys')}&profile=seed001`);
  await page.waitForSelector('#search-results .explain');
  assert.match(await page.$eval('#search-results .explain', (e) => e.innerText), /keyword[\s\S]*×/);
  await page.close();
});

test('edit a memory and see the change through the API, with its history', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, `#/memory/${seeded.pref.id}`);
  await page.waitForSelector('#history li');
  assert.equal((await page.$$('#history li')).length, 2);
  await page.$eval('#edit-content', (t) => { t.value = ''; });
  await page.type('#edit-content', 'The user edits code in Zed since May');
  await page.$eval('#edit-tags', (t) => { t.value = ''; });
  await page.type('#edit-tags', 'prefs, editor');
  await page.click('#edit-pinned');
  await page.click('#edit-save');
  await page.waitForFunction(() => /Zed since May/.test(document.querySelector('#memory-content')?.textContent || ''));
  await page.waitForSelector('#history li:nth-child(3)');
  const m = await api('GET', `/v1/keys?agent_id=${agent}&key=${encodeURIComponent('/user/preference/editor')}`);
  assert.equal(m.content, 'The user edits code in Zed since May');
  assert.deepEqual(m.tags.sort(), ['editor', 'prefs']);
  assert.equal(m.pinned, true);
  assert.equal(m.type, 'preference');
  assert.match(await page.$eval('#memory-content', (e) => e.textContent), /Zed since May/);
  await shot(page, 'memory');
  await page.close();
});

test('archive a memory then restore it; restore a pruned one from the ledger', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, `#/memory/${seeded.archive.id}`);
  await page.click('#archive-btn');
  await page.waitForSelector('body[data-ready] #unarchive-btn');
  assert.equal((await api('GET', `/v1/memories/${seeded.archive.id}?agent_id=${agent}`)).archived, true);
  assert.equal(await page.$eval('#field-archived', (e) => e.textContent), 'true');
  await page.click('#unarchive-btn');
  await page.waitForSelector('body[data-ready] #archive-btn');
  assert.equal((await api('GET', `/v1/memories/${seeded.archive.id}?agent_id=${agent}`)).archived, false);

  const pruned = await api('POST', '/v1/prune', { agent_id: agent, tags: ['prunable'] });
  assert.ok(pruned);
  assert.equal((await api('GET', `/v1/memories/${seeded.prune.id}?agent_id=${agent}`)).archived, true);
  await nav(page, `#/memory/${seeded.prune.id}`);
  await page.waitForSelector('#ledger button[data-seq]');
  await page.click('#ledger button[data-seq]');
  await page.waitForFunction(() => document.querySelector('#field-archived')?.textContent === 'false');
  assert.equal((await api('GET', `/v1/memories/${seeded.prune.id}?agent_id=${agent}`)).archived, false);
  await page.close();
});

test('reflect runs as a dry run first', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await page.click('#reflect-btn');
  await page.waitForSelector('#reflect-panel .report');
  assert.match(await page.$eval('#reflect-panel', (e) => e.innerText), /Dry run: nothing changed yet/);
  assert.ok(await page.$('#reflect-apply'));
  await page.close();
});

test('open the graph and expand a node', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, `#/graph?node=${seeded.e1.id}`);
  await page.waitForSelector('#graph svg g.node');
  const count = () => page.$$eval('#graph svg g.node', (n) => n.length);
  assert.equal(await count(), 2); // e1 and e2 (precedes)
  await page.click(`#graph svg g.node[data-id="${seeded.e2.id}"]`);
  await page.waitForSelector('#expand-btn:not([disabled])');
  await page.click('#expand-btn');
  await page.waitForFunction((id) => document.querySelectorAll('#graph svg g.node').length >= 3 && document.querySelector(`#graph svg g.node[data-id="${id}"]`), {}, seeded.e3.id);
  // Expanding by keyboard: focus e3 and press Enter; the memory appears.
  await page.$eval(`#graph svg g.node[data-id="${seeded.e3.id}"]`, (g) => g.focus());
  await page.keyboard.press('Enter');
  await page.waitForFunction((id) => !!document.querySelector(`#graph svg g.node[data-id="${id}"]`), {}, seeded.deploy.id);
  assert.ok(await count() >= 4);
  await shot(page, 'graph');
  await page.close();
});

test('untrusted memory content stays text on every page', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, '#/memories?tags=xss');
  await page.waitForSelector('#mem-table');
  assert.match(await mainText(page), /<script>window.__pwned=1<\/script>/);
  await nav(page, `#/memory/${seeded.xss.id}`);
  await page.waitForSelector('#history li');
  assert.equal(await page.$eval('#memory-content', (e) => e.textContent.trim()), XSS);
  await nav(page, `#/search?q=${encodeURIComponent('pwned script img onerror')}&profile=lexical`);
  await page.waitForSelector('#search-results');
  await nav(page, '#/context');
  await nav(page, '#/health');
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.$$eval('main img, main script', (e) => e.length), 0);
  await page.close();
});

test('a key of tenant B never sees tenant A', async () => {
  const page = await newPage();
  await signIn(page, KEY_B);
  const pages = ['#/memories', '#/memories?archived=include', `#/search?q=${encodeURIComponent(SECRET_A)}`, '#/events', `#/graph?node=${seeded.e1.id}`, '#/context', '#/health', `#/memory/${seeded.secret.id}`, '#/events?tab=profile'];
  for (const hsh of pages) {
    await nav(page, hsh);
    await new Promise((r) => setTimeout(r, 250));
    const text = await mainText(page);
    assert.doesNotMatch(text, /marmalade|acme-only|Deploys happen|DeployBegun|Vim|Helix/, `${hsh} shows tenant A: ${text.slice(0, 400)}`);
  }
  await nav(page, `#/memory/${seeded.secret.id}`);
  assert.match(await mainText(page), /not found/i);
  await nav(page, '#/memories');
  await page.waitForSelector('#mem-table');
  assert.match(await mainText(page), /zeppelin/);
  await page.close();
});

test('a read-only key gets no write buttons', async () => {
  const page = await newPage();
  await signIn(page, KEY_AR);
  assert.deepEqual(await page.$$eval('#who-scopes .badge', (b) => b.map((x) => x.textContent)), ['read']);
  assert.equal(await page.$('#reflect-btn'), null);
  await nav(page, `#/memory/${seeded.deploy.id}`);
  await page.waitForSelector('#ledger, #links, main .panel');
  for (const sel of ['#edit-form', '#forget-btn', '#archive-btn', '#unarchive-btn', '#ledger button']) assert.equal(await page.$(sel), null, sel);
  await page.close();
});

test('health, context and events pages render; phone width works', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, '#/health');
  await page.waitForSelector('#by-type .xrow');
  assert.match(await mainText(page), /Embedder and index/);
  await shot(page, 'health');
  await nav(page, '#/context');
  await page.waitForSelector('#boot-text');
  await page.waitForSelector('#snapshot-text');
  await shot(page, 'context');
  await nav(page, '#/events');
  await page.waitForSelector('#timeline .event');
  assert.match(await mainText(page), /DeployBegun/);
  await shot(page, 'events');
  await page.setViewport({ width: 390, height: 844, isMobile: true });
  await nav(page, '#/memories');
  await page.waitForSelector('#mem-table');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `page is ${overflow}px wider than a phone`);
  await shot(page, 'memories-phone');
  await page.close();
});

test('a keyless loopback server opens without a sign-in form', { skip: !keyless && 'MNEMO_UI_KEYLESS_URL is not set' }, async () => {
  const kb = keyless.replace(/\/?$/, '/');
  const post = (path, body) => fetch(new URL(path, kb), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal((await post('/v1/memories', { agent_id: 'default', content: 'The espresso machine is in the kitchen' })).status, 201);
  const page = await newPage();
  await page.goto(kb, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('body[data-ready]', { timeout: ms(15000) });
  assert.equal(await page.$('#signin'), null, 'a sign-in form on a server that has no keys');
  await page.waitForSelector('#mem-table');
  assert.match(await mainText(page), /espresso machine/);
  assert.equal(await page.$eval('#who-tenant', (e) => e.textContent), 'default');
  assert.equal(await page.$eval('#agent-input', (e) => e.value), 'default');
  await page.close();
});

test('the graph side panel shows no missing value', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, `#/graph?node=${seeded.bare.id}`);
  await page.waitForSelector('#graph-side h2');
  assert.deepEqual(await strays(page, '#graph-side'), [], await page.$eval('#graph-side', (e) => e.innerText));
  await page.close();
});

test('the search form shows its labels and choices whole', async () => {
  const page = await newPage();
  await signIn(page, KEY_A);
  await nav(page, `#/search?q=${encodeURIComponent('deploys')}`);
  await page.waitForSelector('#search-form select');
  const cut = await page.evaluate(() => {
    const ctx = document.createElement('canvas').getContext('2d');
    const out = [];
    for (const el of document.querySelectorAll('#search-form .field-label')) {
      if (el.scrollWidth > el.clientWidth + 1) out.push(`label ${el.textContent}`);
    }
    for (const sel of document.querySelectorAll('#search-form select')) {
      const cs = getComputedStyle(sel);
      ctx.font = cs.font;
      const text = sel.options[sel.selectedIndex].text;
      // The text box is the select less its padding and the arrow (16px).
      const room = sel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 16;
      for (const o of sel.options) if (ctx.measureText(o.text).width > room) out.push(`${sel.name}: "${o.text}"`);
      void text;
    }
    return out;
  });
  assert.deepEqual(cut, []);
  await page.close();
});

test('no CSP violation and no page error anywhere', () => {
  assert.deepEqual(violations, []);
});
