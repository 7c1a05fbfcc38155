// engines.mjs checks that the Node version docs/CLIENTS.md promises runs the
// TypeScript client and everything its lock file installs: package.json's
// engines.node says the same, and no locked package's engines.node leaves
// that version out (npm ci would warn EBADENGINE, and the adapter it
// serves would be unsupported there).
//
// Usage: node scripts/engines.mjs docs/CLIENTS.md
import { readFileSync } from "node:fs";

const [readme] = process.argv.slice(2);
if (!readme) {
  console.error("usage: node scripts/engines.mjs docs/CLIENTS.md");
  process.exit(2);
}
const pkgDir = new URL("..", import.meta.url);
const m = /\*\*TypeScript\*\*[\s\S]*?Node (\d+) or newer/.exec(readFileSync(readme, "utf8"));
if (!m) {
  console.error(`engines: ${readme} says no "Node N or newer" for the TypeScript client`);
  process.exit(1);
}
const promised = [Number(m[1]), 0, 0];

/** admits reports whether the engines range admits version v ([major, minor, patch]); it knows
 * the forms npm packages use: ">=1.2.3", ">1", "<2", "<=2", "^1.2", "~1.2", "1.x", "1", "*", "A - B",
 * space-separated (all must hold) and "||" (one must). */
function admits(range, v) {
  const cmp = (a, b) => (a[0] - b[0]) || (a[1] - b[1]) || (a[2] - b[2]);
  const parse = (s) => {
    const p = s.replace(/^v/, "").split(".").map((x) => (x === "x" || x === "*" ? NaN : Number(x)));
    if (p.length > 3 || p.some((x, i) => Number.isNaN(x) && !/^[x*]$/.test(s.split(".")[i] ?? ""))) throw new Error(`engines: cannot read version ${s}`);
    return p;
  };
  const full = (p) => [p[0] || 0, Number.isNaN(p[1]) ? 0 : p[1] ?? 0, Number.isNaN(p[2]) ? 0 : p[2] ?? 0];
  const one = (c) => {
    if (c === "*" || c === "" || c === "x") return true;
    const op = /^(>=|<=|>|<|\^|~|=)?\s*(.+)$/.exec(c);
    const p = parse(op[2]);
    const lo = full(p);
    const parts = p.filter((x) => !Number.isNaN(x)).length;
    switch (op[1]) {
      case ">=": return cmp(v, lo) >= 0;
      case ">": return cmp(v, lo) > 0;
      case "<": return cmp(v, lo) < 0;
      case "<=": return cmp(v, lo) <= 0;
      case "^": return cmp(v, lo) >= 0 && (lo[0] > 0 ? v[0] === lo[0] : lo[1] > 0 ? v[0] === 0 && v[1] === lo[1] : v[0] === 0 && v[1] === 0 && v[2] === lo[2]);
      case "~": return cmp(v, lo) >= 0 && v[0] === lo[0] && (parts < 2 || v[1] === lo[1]);
      default: // "1", "1.x", "1.2.3"
        return v[0] === lo[0] && (parts < 2 || v[1] === lo[1]) && (parts < 3 || v[2] === lo[2]);
    }
  };
  return range.split("||").some((alt) => {
    const hy = /^\s*(\S+)\s+-\s+(\S+)\s*$/.exec(alt);
    if (hy) return one(`>=${hy[1]}`) && one(`<=${hy[2]}`);
    return alt.trim().replace(/(>=|<=|>|<|=|\^|~)\s+/g, "$1").split(/\s+/).every(one);
  });
}

const bad = [];
const pkg = JSON.parse(readFileSync(new URL("package.json", pkgDir), "utf8"));
if (pkg.engines?.node !== `>=${promised[0]}`) bad.push(`package.json engines.node is ${JSON.stringify(pkg.engines?.node)}, ${readme} promises Node ${promised[0]} (">=${promised[0]}")`);
const lock = JSON.parse(readFileSync(new URL("package-lock.json", pkgDir), "utf8"));
for (const [path, p] of Object.entries(lock.packages)) {
  const range = p.engines?.node;
  if (path && range && !admits(range, promised)) bad.push(`${path.replace(/^node_modules\//, "")}@${p.version} needs Node ${range}`);
}
for (const b of bad) console.log(`FAIL ${b}`);
console.log(`engines: ${bad.length ? `${bad.length === 1 ? "a package leaves" : `${bad.length} packages leave`} out` : "everything runs on"} Node ${promised[0]}, as ${readme} promises`);
process.exit(bad.length ? 1 : 0);
