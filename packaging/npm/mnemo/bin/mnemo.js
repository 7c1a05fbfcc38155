#!/usr/bin/env node
// The `mnemo` command of @mnemo-dev/mnemo: runs the mnemo binary that npm
// installed beside this package as the optional dependency of this
// platform (the esbuild and biome pattern: nothing is downloaded at install
// time, and there is no install script), with this process's arguments,
// standard streams, and exit status.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const platforms = {
  "linux-x64": "@mnemo-dev/mnemo-linux-x64",
  "linux-arm64": "@mnemo-dev/mnemo-linux-arm64",
  "darwin-x64": "@mnemo-dev/mnemo-darwin-x64",
  "darwin-arm64": "@mnemo-dev/mnemo-darwin-arm64",
  "win32-x64": "@mnemo-dev/mnemo-win32-x64",
  "win32-arm64": "@mnemo-dev/mnemo-win32-arm64",
};

function binary() {
  const key = `${process.platform}-${process.arch}`;
  const pkg = platforms[key];
  if (!pkg) {
    throw new Error(`mnemo has no binary for ${key}: it ships for ${Object.keys(platforms).join(", ")}`);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `${pkg}, the mnemo binary for ${key}, is not installed: npm skips it when optional dependencies are ` +
        `left out (--omit=optional, --no-optional) or the lock file was made on another platform; ` +
        `reinstall @mnemo-dev/mnemo without those`,
    );
  }
  return path.join(dir, "bin", process.platform === "win32" ? "mnemo.exe" : "mnemo");
}

let bin;
try {
  bin = binary();
} catch (err) {
  console.error(`mnemo: ${err.message}`);
  process.exit(1);
}
const res = spawnSync(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (res.error) {
  console.error(`mnemo: cannot run ${bin}: ${res.error.message}`);
  process.exit(1);
}
if (res.signal) {
  // Die of the same signal, so that the parent sees what happened.
  process.kill(process.pid, res.signal);
}
process.exit(res.status ?? 1);
