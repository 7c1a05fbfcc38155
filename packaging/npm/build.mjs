// build.mjs writes mnemo's npm packages from the binaries GoReleaser built:
// one package per platform carrying its binary (@mnemo-dev/mnemo-linux-x64,
// …, each with os and cpu so that npm installs only the one that fits), and
// @mnemo-dev/mnemo, whose `mnemo` command runs it and which lists them all
// as optional dependencies of its exact version. Each is packed with
// `npm pack` into DIST/npm.
//
// Usage: node packaging/npm/build.mjs DIST
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(process.argv[2] ?? "dist");
const meta = JSON.parse(fs.readFileSync(path.join(dist, "metadata.json"), "utf8"));
const artifacts = JSON.parse(fs.readFileSync(path.join(dist, "artifacts.json"), "utf8"));
const version = meta.version;
const scope = "@mnemo-dev";
const repository = { type: "git", url: "git+https://github.com/mnemo-dev/mnemo.git" };
const homepage = "https://github.com/mnemo-dev/mnemo#get-mnemo";

// Go's names to Node's (process.platform, process.arch).
const nodeOS = { linux: "linux", darwin: "darwin", windows: "win32" };
const nodeCPU = { amd64: "x64", arm64: "arm64" };

// The notices of the models embedded in the binary go with it.
const notices = ["embed/glove/data/NOTICE", "embed/use/data/NOTICE", "embed/use/data/LICENSE"];
const out = path.join(dist, "npm");
const work = path.join(out, "build");
fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });

function writeJSON(file, value) {
  fs.writeFileSync(file, JSON.stringify(value, null, 2) + "\n");
}

function pack(dir) {
  const json = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", out, "--loglevel=error"], {
    cwd: dir,
    encoding: "utf8",
  });
  return JSON.parse(json)[0].filename;
}

const optional = {};
const binaries = artifacts.filter((a) => a.type === "Binary" && a.extra?.ID === "mnemo");
if (binaries.length === 0) {
  throw new Error(`no mnemo binary in ${dist}/artifacts.json: run GoReleaser first`);
}
for (const a of binaries) {
  const os = nodeOS[a.goos];
  const cpu = nodeCPU[a.goarch];
  if (!os || !cpu) continue;
  const name = `${scope}/mnemo-${os}-${cpu}`;
  const dir = path.join(work, `mnemo-${os}-${cpu}`);
  const exe = os === "win32" ? "mnemo.exe" : "mnemo";
  fs.mkdirSync(path.join(dir, "bin"), { recursive: true });
  fs.copyFileSync(path.resolve(dist, "..", a.path), path.join(dir, "bin", exe));
  fs.chmodSync(path.join(dir, "bin", exe), 0o755);
  for (const n of notices) {
    const dst = path.join(dir, "notices", path.basename(path.dirname(path.dirname(n))), path.basename(n));
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.copyFileSync(path.resolve(dist, "..", n), dst);
  }
  writeJSON(path.join(dir, "package.json"), {
    name,
    version,
    description: `The mnemo binary for ${os} ${cpu}; install @mnemo-dev/mnemo, which picks it`,
    repository,
    homepage,
    os: [os],
    cpu: [cpu],
    files: [`bin/${exe}`, "notices"],
    preferUnplugged: true,
  });
  fs.writeFileSync(path.join(dir, "README.md"), `# ${name}\n\nThe mnemo binary for ${os} ${cpu}. Install [@mnemo-dev/mnemo](https://www.npmjs.com/package/@mnemo-dev/mnemo), which depends on it where it fits.\n`);
  console.log(`npm: ${pack(dir)}`);
  optional[name] = version;
}

const main = path.join(work, "mnemo");
fs.cpSync(path.join(here, "mnemo"), main, { recursive: true });
fs.chmodSync(path.join(main, "bin", "mnemo.js"), 0o755);
writeJSON(path.join(main, "package.json"), {
  name: `${scope}/mnemo`,
  version,
  description: "mnemo, long-term and short-term memory for AI agents: the server, the MCP server (mnemo mcp) and the CLI in one binary",
  keywords: ["mcp", "memory", "agents", "llm", "mcp-server"],
  repository,
  homepage,
  bin: { mnemo: "bin/mnemo.js" },
  files: ["bin/mnemo.js"],
  engines: { node: ">=18" },
  optionalDependencies: Object.fromEntries(Object.entries(optional).sort()),
});
console.log(`npm: ${pack(main)}`);
fs.rmSync(work, { recursive: true, force: true });
