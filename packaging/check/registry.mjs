// registry.mjs serves npm packages from directories of packed tarballs, as
// the npm registry would once they are published, so that `npm install`
// and `npx -y` are tested offline exactly as a user runs them (with
// npm_config_registry pointing here). Every other name is 404, as an
// unpublished one would be. It listens on a free loopback port, writes
// its URL to the file given, and logs each request to standard error.
//
// Usage: node registry.mjs URL-FILE DIR...
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";

const [urlFile, ...dirs] = process.argv.slice(2);
if (!urlFile || dirs.length === 0) {
  console.error("usage: node registry.mjs URL-FILE DIR...");
  process.exit(2);
}

// packageJSON reads package/package.json out of a .tgz: from its first
// 256 KiB when it is there (npm pack writes it first), else from the whole.
function packageJSON(tgz) {
  const head = zlib.gunzipSync(tgz.subarray(0, 256 << 10), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
  try {
    return findPackageJSON(head);
  } catch {
    return findPackageJSON(zlib.gunzipSync(tgz));
  }
}

function findPackageJSON(tar) {
  for (let off = 0; off + 512 <= tar.length; ) {
    const name = tar.toString("utf8", off, off + 100).replace(/\0.*$/s, "");
    const size = parseInt(tar.toString("utf8", off + 124, off + 136).replace(/\0.*$/s, "").trim() || "0", 8);
    if (!name) break;
    if (name === "package/package.json" && off + 512 + size <= tar.length) {
      return JSON.parse(tar.toString("utf8", off + 512, off + 512 + size));
    }
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error("no package/package.json");
}

const packages = new Map(); // name -> {versions: {v: manifest}, files: {file: path}}
const tarballs = new Map(); // file -> path
for (const full of dirs.flatMap((d) => fs.readdirSync(d).filter((f) => f.endsWith(".tgz")).sort().map((f) => path.join(d, f)))) {
  const file = path.basename(full);
  const body = fs.readFileSync(full);
  const pj = packageJSON(body);
  const p = packages.get(pj.name) ?? { name: pj.name, versions: {}, "dist-tags": {} };
  tarballs.set(file, full);
  p.versions[pj.version] = {
    ...pj,
    _id: `${pj.name}@${pj.version}`,
    dist: {
      tarball: `/-/tarballs/${file}`,
      integrity: "sha512-" + crypto.createHash("sha512").update(body).digest("base64"),
      shasum: crypto.createHash("sha1").update(body).digest("hex"),
    },
  };
  p["dist-tags"].latest = pj.version;
  packages.set(pj.name, p);
}

const server = http.createServer((req, res) => {
  const base = `http://${req.headers.host}`;
  const url = decodeURIComponent(new URL(req.url, base).pathname);
  console.error(`registry: ${req.method} ${url}`);
  if (url.startsWith("/-/tarballs/") && tarballs.has(url.slice(12))) {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    fs.createReadStream(tarballs.get(url.slice(12))).pipe(res);
    return;
  }
  const p = packages.get(url.slice(1));
  if (req.method !== "GET" || !p) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: "Not found" }));
    return;
  }
  const doc = structuredClone(p);
  for (const v of Object.values(doc.versions)) v.dist.tarball = base + v.dist.tarball;
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(doc));
});
server.listen(0, "127.0.0.1", () => {
  const url = `http://127.0.0.1:${server.address().port}/`;
  fs.writeFileSync(urlFile + ".tmp", url);
  fs.renameSync(urlFile + ".tmp", urlFile);
  console.error(`registry: ${[...packages.keys()].join(", ")} at ${url}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
