// Dev and test harness until `mnemo serve` serves the UI itself: serves
// web/static with the headers the Go side will send, and proxies every
// other path to a running mnemo (MNEMO_API, e.g. http://127.0.0.1:7077).
//
//   MNEMO_API=http://127.0.0.1:7077 PORT=7078 node web/test/serve.mjs
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'static');
const api = new URL(process.env.MNEMO_API || 'http://127.0.0.1:7077');
const port = parseInt(process.env.PORT || '7078', 10);

export const securityHeaders = {
  'Content-Security-Policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png' };
// The API's paths; everything else is the UI (as the Go side will route).
const apiPath = (p) => p.startsWith('/v1/') || p === '/healthz' || p === '/openapi.json' || p === '/metrics' || p.startsWith('/memory/') || p === '/mcp';

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (apiPath(url.pathname)) {
    const up = http.request({ host: api.hostname, port: api.port, method: req.method, path: req.url, headers: { ...req.headers, host: api.host } }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', (e) => { res.writeHead(502, { 'Content-Type': 'text/plain' }); res.end(`mnemo is not reachable at ${api}: ${e.message}`); });
    req.pipe(up);
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') { res.writeHead(405, { Allow: 'GET, HEAD' }); res.end(); return; }
  const rel = url.pathname === '/' ? 'index.html' : normalize(decodeURIComponent(url.pathname)).replace(/^[/\\]+/, '');
  if (rel.startsWith('..')) { res.writeHead(404); res.end(); return; }
  try {
    const body = await readFile(join(root, rel));
    res.writeHead(200, { ...securityHeaders, 'Content-Type': types[extname(rel)] || 'application/octet-stream', 'Cache-Control': 'no-cache' });
    res.end(req.method === 'HEAD' ? undefined : body);
  } catch {
    res.writeHead(404, { ...securityHeaders, 'Content-Type': 'text/plain' });
    res.end('not found');
  }
});
server.listen(port, '127.0.0.1', () => console.log(`mnemo UI on http://127.0.0.1:${server.address().port}/ (API ${api})`));
