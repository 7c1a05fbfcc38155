#!/usr/bin/env python3
"""dist_check.py installs and runs each artifact `make dist` wrote, as a
user would, offline (OPS-7), and the README's "Get mnemo" lines and MCP client
configurations with them:

  archives   checksums.txt and the SBOMs; this platform's archive unpacked
             as the README says, its binary stamped (version, commit, date),
             stripped and -trimpath, serving /healthz with its version
  npm        @mnemo-dev/mnemo and its platform packages from a local
             registry (registry.mjs) that serves dist/npm as npm's would:
             npm install in an empty project, npx --version, npx mcp
             answering an MCP initialize; the README's npx and npm -g
             lines; the TypeScript client installed by its name
  python     the mnemo-server wheel in a fresh venv with pip --no-index:
             mnemo, mnemo-server and python -m mnemo_server; mnemo serve
             answering /healthz; the README's pip and pipx lines; the
             Python client (mnemo-client) installed by its name from
             dist/clients, used against a served mnemo
  oci        the image's layout (digests, platforms, config), its layers
             unpacked and its entrypoint and command run as its user in a
             chroot in a network namespace of its own, with the README's
             docker run settings: /healthz, an authorised write, the
             health check of its config
  homebrew   the formula's urls and checksums against the archives, and
             its test block's command on this platform's binary
  mcp        every MCP client configuration in the README (JSON, TOML
             and the `claude mcp add` and `codex mcp add` lines), its
             command and arguments run against the local registry and
             answering initialize
  workflows  actionlint on .github/workflows
  builders   the builders' own tests: packaging/tools (the image builder,
             the health check) and packaging/python (the wheel writer)

Each check prints a line; the last line is "dist-check: N passed, N
failed". It needs root (or sudo) for the chroot, Debian's python3-venv,
python3-httpx and pipx (scripts/dist-check.sh installs them), node and npm.

Usage: dist_check.py DIST [CHECK...]
"""

import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import traceback
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.dirname(os.path.abspath(__file__))
PY = "/usr/bin/python3"  # Debian's, which has venv, pip and httpx
NPM_PKG = "@mnemo-dev/mnemo"
WHEEL_PKG = "mnemo-server"
# The clients, by the names their packages are published under (mnemo is
# taken on both registries by unrelated packages).
TS_CLIENT = "@mnemo-dev/client"
PY_CLIENT = "mnemo-client"
ARCH = {"x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}[os.uname().machine]


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


def run(cmd, timeout=300, **kw):
    """Run cmd; its standard output, or Fail with its standard error."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise Fail("%s: still running after %ds" % (shlex.join(cmd), timeout))
    if p.returncode != 0:
        raise Fail("%s: exit %d\n%s%s" % (shlex.join(cmd), p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
    return p.stdout


def get(url, headers=None, data=None, method=None):
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


class Server:
    """`mnemo serve` on a free loopback port, stopped on exit."""

    def __init__(self, argv, log, env=None, cwd=None):
        self.log = log
        self.proc = subprocess.Popen(argv + ["serve", "--addr", "127.0.0.1:0"], stdout=open(log, "w"), stderr=subprocess.STDOUT, env=env, cwd=cwd)
        self.url = None
        for _ in range(600):
            m = re.search(r'msg="mnemo serving" addr=(\S+)', open(log).read())
            if m:
                self.url = "http://" + m.group(1)
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise Fail("%s serve did not start:\n%s" % (argv[-1], open(log).read()[-2000:]))

    def healthz(self, version):
        status, body = get(self.url + "/healthz")
        check(status == 200, "/healthz: %d %s" % (status, body))
        got = json.loads(body)
        check(got.get("version") == version, "/healthz says version %r, want %r" % (got.get("version"), version))
        return body

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


class DistCheck:
    def __init__(self, dist, tmp):
        self.dist = dist
        self.tmp = tmp
        with open(os.path.join(dist, "metadata.json")) as f:
            self.meta = json.load(f)
        self.version = self.meta["version"]
        self.commit = self.meta["commit"]
        with open(os.path.join(dist, "artifacts.json")) as f:
            self.artifacts = json.load(f)
        with open(os.path.join(ROOT, "README.md")) as f:
            self.readme = f.read()
        self.registry = None
        self.registry_url = None

    # Helpers.

    def path(self, *p):
        return os.path.join(self.tmp, *p)

    def archive(self, goos=None, goarch=None):
        goos, goarch = goos or sys.platform.replace("win32", "windows"), goarch or ARCH
        ext = "zip" if goos == "windows" else "tar.gz"
        return "mnemo_%s_%s_%s.%s" % (self.version, goos, goarch, ext)

    def channel_lines(self):
        """The README's one line per channel: the ```sh block after
        <!-- dist-check: channels -->, each line without its comment."""
        m = re.search(r"<!-- dist-check: channels -->\n```sh\n(.*?)```\n", self.readme, re.S)
        check(m, "README.md has no ```sh block after <!-- dist-check: channels -->")
        return [l.split("  #")[0].strip() for l in m.group(1).splitlines() if l.strip() and not l.startswith("#")]

    def channel(self, prefix):
        for line in self.channel_lines():
            if line.startswith(prefix):
                return line
        raise Fail("README.md's channels have no line starting %r" % prefix)

    def npm_env(self, cache):
        env = dict(os.environ)
        env.update({
            "npm_config_registry": self.registry_url,
            "npm_config_cache": cache,
            "npm_config_audit": "false",
            "npm_config_fund": "false",
            "npm_config_update_notifier": "false",
            "npm_config_loglevel": "error",
        })
        return env

    def start_registry(self):
        if self.registry_url:
            return
        if self.registry:
            raise Fail("the local npm registry did not start (see the npm check)")
        urlfile = self.path("registry.url")
        self.registry = subprocess.Popen(["node", os.path.join(HERE, "registry.mjs"), urlfile, os.path.join(self.dist, "npm"), os.path.join(self.dist, "clients")],
                                         stderr=open(self.path("registry.log"), "w"))
        for _ in range(1200):
            if os.path.exists(urlfile):
                self.registry_url = open(urlfile).read()
                return
            if self.registry.poll() is not None:
                break
            time.sleep(0.1)
        raise Fail("the local npm registry did not start:\n" + open(self.path("registry.log")).read())

    def close(self):
        if self.registry:
            self.registry.terminate()
            self.registry.wait()

    # The checks.

    def check_archives(self):
        out = run(["sha256sum", "--check", "--strict", "checksums.txt"], cwd=self.dist)
        names = [l.split()[1] for l in open(os.path.join(self.dist, "checksums.txt"))]
        archives = [n for n in names if n.endswith((".tar.gz", ".zip"))]
        check(archives, "checksums.txt lists no archive")
        sboms = [a for a in os.listdir(self.dist) if a.endswith(".cdx.json")]
        check(len(sboms) == len(archives), "%d SBOMs for %d archives" % (len(sboms), len(archives)))
        for s in sboms:
            with open(os.path.join(self.dist, s)) as f:
                bom = json.load(f)
            check(bom.get("bomFormat") == "CycloneDX", "%s: not CycloneDX" % s)
            comps = {c.get("name") for c in bom.get("components", [])}
            check("modernc.org/sqlite" in comps, "%s: modernc.org/sqlite is not among its %d components" % (s, len(comps)))
        # The README's archive line, as written, where the archive is.
        d = self.path("archive")
        os.makedirs(d)
        shutil.copy(os.path.join(self.dist, self.archive()), d)
        line = self.channel("tar -xzf ")
        run(["bash", "-c", line], cwd=d)
        mnemo = os.path.join(d, "mnemo")
        got = run([mnemo, "--version"]).strip()
        check(self.version in got and self.commit[:12] in got, "mnemo --version: %r, want %s and commit %s" % (got, self.version, self.commit[:12]))
        v = json.loads(run([mnemo, "version", "--json"]))
        check(v["version"] == self.version and v["commit"] == self.commit and v.get("date") and not v.get("modified"),
              "mnemo version --json: %r" % v)
        sections = run(["readelf", "-S", "-W", mnemo])
        check(".symtab" not in sections and ".debug_info" not in sections and ".zdebug_info" not in sections,
              "the binary has a symbol table or DWARF: not built with -s -w")
        gov = run(["go", "version", "-m", mnemo])
        check("-trimpath=true" in gov, "go version -m: no -trimpath=true")
        srv = Server([mnemo, "--data", self.path("archive-data")], self.path("archive-serve.log"))
        try:
            srv.healthz(self.version)
        finally:
            srv.stop()
        return "%d archives and SBOMs verified; %s: %s" % (len(archives), self.archive(), got)

    def check_npm(self):
        self.start_registry()
        # npm install in an empty project, then npx by the package's name.
        app = self.path("npm-app")
        os.makedirs(app)
        with open(os.path.join(app, "package.json"), "w") as f:
            f.write('{"private": true}\n')
        env = self.npm_env(self.path("npm-cache-app"))
        run(["npm", "install", NPM_PKG], cwd=app, env=env)
        installed = sorted(os.listdir(os.path.join(app, "node_modules", "@mnemo-dev")))
        plat = "mnemo-%s-%s" % (sys.platform, {"amd64": "x64"}.get(ARCH, ARCH))
        check(installed == ["mnemo", plat], "node_modules/@mnemo-dev: %s, want mnemo and %s alone" % (installed, plat))
        got = run(["npx", NPM_PKG, "--version"], cwd=app, env=env).strip()
        check(self.version in got, "npx %s --version: %r" % (NPM_PKG, got))
        run([PY, os.path.join(HERE, "mcp_initialize.py"), "--expect-version", self.version, "--",
             "npx", NPM_PKG, "--data", self.path("npm-data"), "mcp"], cwd=app, env=env)
        # The README's lines: npx -y with nothing installed, npm install -g.
        env = self.npm_env(self.path("npm-cache-npx"))
        env["npm_config_prefix"] = self.path("npm-global")
        d = self.path("npm-empty")
        os.makedirs(d)
        got = run(["bash", "-c", self.channel("npx -y ")], cwd=d, env=env).strip()
        check(self.version in got, "%s: %r" % (self.channel("npx -y "), got))
        run(["bash", "-c", self.channel("npm install -g ")], cwd=d, env=env)
        got = run([os.path.join(self.path("npm-global"), "bin", "mnemo"), "--version"]).strip()
        check(self.version in got, "mnemo from npm install -g: %r" % got)
        # The TypeScript client, by its package name.
        client = self.check_ts_client()
        return "npm install, npx --version and npx mcp (initialize) from the local registry; npm -g; %s" % client

    def check_ts_client(self):
        tgz = [f for f in os.listdir(os.path.join(self.dist, "clients")) if f.endswith(".tgz")]
        check(len(tgz) == 1, "dist/clients: TypeScript client tarballs %s, want one" % tgz)
        name = json.loads(run(["tar", "-xzOf", os.path.join(self.dist, "clients", tgz[0]), "package/package.json"]))["name"]
        check(name == TS_CLIENT, "the TypeScript client is named %r, want %r" % (name, TS_CLIENT))
        app = self.path("ts-app")
        os.makedirs(app)
        with open(os.path.join(app, "package.json"), "w") as f:
            f.write('{"private": true, "type": "module"}\n')
        env = self.npm_env(self.path("npm-cache-ts"))
        # The README's line, as written, in an empty project.
        line = self.channel("npm install %s" % TS_CLIENT)
        run(["bash", "-c", line], cwd=app, env=env)
        check(os.path.exists(os.path.join(app, "node_modules", *name.split("/"), "package.json")), "npm install %s: not in node_modules" % name)
        # The server: the binary npm installed in the npm check's project.
        plat = "mnemo-%s-%s" % (sys.platform, {"amd64": "x64"}.get(ARCH, ARCH))
        mnemo = os.path.join(self.path("npm-app"), "node_modules", "@mnemo-dev", plat, "bin", "mnemo")
        srv = Server([mnemo, "--data", self.path("ts-data")], self.path("ts-serve.log"))
        try:
            script = (
                'import { Mnemo } from "%s";\n'
                'const m = new Mnemo({ baseUrl: process.env.MNEMO_URL, agentId: "dist-check" });\n'
                'await m.remember({ content: "The user prefers tea", key: "/user/drink" });\n'
                'const { results } = await m.recall({ query: "what does the user drink?", limit: 1 });\n'
                "console.log(results[0].content);\n" % name)
            with open(os.path.join(app, "check.mjs"), "w") as f:
                f.write(script)
            got = run(["node", "check.mjs"], cwd=app, env=dict(env, MNEMO_URL=srv.url)).strip()
            check(got == "The user prefers tea", "the TypeScript client recalled %r" % got)
        finally:
            srv.stop()
        return "%s, remember and recall" % line

    def venv(self, name, system=False):
        d = self.path(name)
        run([PY, "-m", "venv"] + (["--system-site-packages"] if system else []) + [d])
        return d

    def check_python(self):
        wheels = [w for w in os.listdir(os.path.join(self.dist, "python")) if w.startswith("mnemo_server-")]
        check(wheels, "dist/python has no mnemo_server wheel")
        v = self.venv("venv")
        bin_ = os.path.join(v, "bin")
        env = dict(os.environ, PATH=bin_ + os.pathsep + os.environ["PATH"], VIRTUAL_ENV=v,
                   PIP_NO_INDEX="1", PIP_FIND_LINKS=os.path.join(self.dist, "python"), PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("PYTHONHOME", None)
        # The README's line, as written, in the activated venv.
        line = self.channel("pip install %s" % WHEEL_PKG)
        run(["bash", "-c", line], env=env, cwd=self.tmp)
        which = shutil.which("mnemo", path=env["PATH"])
        check(which == os.path.join(bin_, "mnemo"), "mnemo on PATH is %s, want the venv's" % which)
        # pip chose this platform's wheel among them.
        tag = {"amd64": "x86_64", "arm64": "aarch64"}[ARCH]
        infos = glob.glob(os.path.join(v, "lib", "python*", "site-packages", "mnemo_server-*.dist-info", "WHEEL"))
        check(len(infos) == 1, "mnemo_server's WHEEL in the venv: %s" % infos)
        with open(infos[0]) as f:
            wheel = f.read()
        check("manylinux_2_17_%s" % tag in wheel, "pip installed a wheel tagged\n%s" % wheel)
        for cmd in (["mnemo", "--version"], ["mnemo-server", "--version"], ["python", "-m", "mnemo_server", "--version"]):
            got = run(cmd, env=env).strip()
            check(self.version in got, "%s: %r" % (" ".join(cmd), got))
        srv = Server(["mnemo", "--data", self.path("py-data")], self.path("py-serve.log"), env=env)
        try:
            srv.healthz(self.version)
            client = self.check_python_client(srv.url)
        finally:
            srv.stop()
        # The README's pipx line, outside the venv, in a pipx home of its
        # own; pip offline as above (pipx runs pip, which reads PIP_*).
        pipx = self.channel("pipx run ")
        penv = dict(env, PATH=os.environ["PATH"], PIPX_HOME=self.path("pipx"), PIPX_BIN_DIR=self.path("pipx-bin"))
        penv.pop("VIRTUAL_ENV")
        got = run(["bash", "-c", pipx], env=penv, cwd=self.tmp).strip()
        check(self.version in got, "%s: %r" % (pipx, got))
        return "%s (%d wheels offered, linux %s installed): mnemo, mnemo-server, python -m mnemo_server; mnemo serve /healthz; %s; %s" % (line, len(wheels), tag, client, pipx)

    def check_python_client(self, url):
        whl = [w for w in os.listdir(os.path.join(self.dist, "clients")) if w.endswith("-py3-none-any.whl")]
        check(len(whl) == 1, "dist/clients: Python client wheels %s, want one" % whl)
        # By its name, from dist/clients alone; httpx from Debian's
        # packages, seen through --system-site-packages.
        v = self.venv("venv-client", system=True)
        env = dict(os.environ, PATH=os.path.join(v, "bin") + os.pathsep + os.environ["PATH"], VIRTUAL_ENV=v,
                   PIP_NO_INDEX="1", PIP_FIND_LINKS=os.path.join(self.dist, "clients"), PIP_DISABLE_PIP_VERSION_CHECK="1")
        line = self.channel("pip install %s" % PY_CLIENT)
        run(["bash", "-c", line], env=env, cwd=self.tmp)
        infos = glob.glob(os.path.join(v, "lib", "python*", "site-packages", "%s-*.dist-info" % PY_CLIENT.replace("-", "_")))
        check(len(infos) == 1, "pip install %s: dist-info %s" % (PY_CLIENT, infos))
        code = ("import os, mnemo\n"
                "m = mnemo.Client(base_url=os.environ['MNEMO_URL'], agent_id='dist-check-py')\n"
                "m.remember(content='The user drinks green tea every morning', key='/user/drink')\n"
                "print(m.recall(query='what does the user drink?', limit=1)['results'][0]['content'])\n")
        got = run([os.path.join(v, "bin", "python"), "-c", code], cwd=self.tmp, env=dict(os.environ, MNEMO_URL=url)).strip()
        check(got == "The user drinks green tea every morning", "the Python client recalled %r" % got)
        return "%s (%s), remember and recall" % (line, whl[0])

    def check_oci(self):
        tars = [t for t in os.listdir(os.path.join(self.dist, "oci")) if t.endswith("_oci.tar")]
        check(len(tars) == 1, "dist/oci: %s, want one image tarball" % tars)
        lay = self.path("oci-layout")
        os.makedirs(lay)
        with tarfile.open(os.path.join(self.dist, "oci", tars[0])) as t:
            t.extractall(lay)

        def blob(desc, verify=True):
            algo, hexd = desc["digest"].split(":")
            with open(os.path.join(lay, "blobs", algo, hexd), "rb") as f:
                b = f.read()
            check(hashlib.sha256(b).hexdigest() == hexd and len(b) == desc["size"], "blob %s: digest or size differs" % desc["digest"])
            return b

        check(json.load(open(os.path.join(lay, "oci-layout"))).get("imageLayoutVersion") == "1.0.0", "oci-layout: not 1.0.0")
        top = json.load(open(os.path.join(lay, "index.json")))
        index = json.loads(blob(top["manifests"][0]))
        check(index["mediaType"] == "application/vnd.oci.image.index.v1+json", "not an OCI image index: %s" % index.get("mediaType"))
        plats = {"%s/%s" % (m["platform"]["os"], m["platform"]["architecture"]): m for m in index["manifests"]}
        want = "linux/" + ARCH
        check(want in plats, "the index has %s, not %s" % (sorted(plats), want))
        manifest = json.loads(blob(plats[want]))
        config = json.loads(blob(manifest["config"]))
        cfg = config["config"]
        check(cfg.get("User") == "65532:65532", "User %r, want the non-root 65532" % cfg.get("User"))
        check("/data" in cfg.get("Volumes", {}), "no /data volume")
        check(cfg.get("Cmd", [])[-3:] == ["serve", "--addr", "0.0.0.0:7077"], "Cmd %r" % cfg.get("Cmd"))
        hc = cfg.get("Healthcheck", {}).get("Test", [])
        check(hc[:1] == ["CMD"], "no Docker health check in the config: %r" % hc)
        # The layers, in order, into a root file system.
        rootfs = self.path("oci-rootfs")
        os.makedirs(rootfs)
        for layer in manifest["layers"]:
            path = self.path("layer.tar.gz")
            with open(path, "wb") as f:
                f.write(blob(layer))
            with tarfile.open(path) as t:
                t.extractall(rootfs, numeric_owner=True, **({"filter": "fully_trusted"} if hasattr(tarfile, "fully_trusted_filter") else {}))
        # The README's docker run settings.
        line = self.channel("docker run ")
        for part in ("-p 127.0.0.1:7077:7077", ":/data", "-e MNEMO_KEY"):
            check(part in line, "%r has no %r" % (line, part))
        key = "dist-check-" + os.urandom(8).hex()
        with open(self.path("oci-config.json"), "w") as f:
            json.dump(config, f)
        prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
        got = run(prefix + ["unshare", "--net", PY, os.path.join(HERE, "oci_run.py"), rootfs, self.path("oci-config.json"), key, self.version], timeout=180)
        return "%s: %s" % (tars[0], got.strip())

    def check_homebrew(self):
        rb = open(os.path.join(self.dist, "homebrew", "mnemo.rb")).read()
        pairs = re.findall(r'url "([^"]+)"\s+sha256 "([0-9a-f]{64})"', rb)
        sums = dict(reversed(l.split()) for l in open(os.path.join(self.dist, "checksums.txt")))
        # 4 in a full build: macOS and Linux, Intel and ARM.
        want = len([n for n in sums if re.search(r"_(darwin|linux)_(amd64|arm64)\.tar\.gz$", n)])
        check(len(pairs) == want, "the formula has %d url/sha256 pairs, want %d, one per macOS and Linux archive" % (len(pairs), want))
        for url, sha in pairs:
            name = url.rsplit("/", 1)[1]
            check(url.endswith("/v%s/%s" % (self.version, name)), "url %s is not the release's" % url)
            check(sums.get(name) == sha, "%s: the formula's sha256 is not checksums.txt's" % name)
            with open(os.path.join(self.dist, name), "rb") as f:
                check(hashlib.sha256(f.read()).hexdigest() == sha, "%s: sha256 differs from the formula's" % name)
        check(re.search(r'version "%s"' % re.escape(self.version), rb), "the formula's version is not %s" % self.version)
        # What brew does for this platform: unpack, bin.install "mnemo",
        # then the test block's command.
        check('bin.install "mnemo"' in rb and 'shell_output("#{bin}/mnemo --version")' in rb, "install or test block changed: update this check")
        prefix = self.path("brew", "bin")
        os.makedirs(prefix)
        run(["tar", "-xzf", os.path.join(self.dist, self.archive("linux", ARCH)), "-C", prefix, "mnemo"])
        got = run([os.path.join(prefix, "mnemo"), "--version"])
        check(self.version in got, "the formula's test: %r has no %s" % (got, self.version))
        if shutil.which("ruby"):
            run(["ruby", "-c", os.path.join(self.dist, "homebrew", "mnemo.rb")])
        return "%d urls and checksums match the archives; the test block passes on linux/%s" % (len(pairs), ARCH)

    def mcp_commands(self):
        """Every spawned MCP server in the README: (where, argv)."""
        out = []
        for i, m in enumerate(re.finditer(r"<!-- readme-run: mcp-config -->\n```json\n(.*?)```\n", self.readme, re.S)):
            cfg = json.loads(m.group(1))
            for name, s in {**cfg.get("mcpServers", {}), **cfg.get("servers", {})}.items():
                if "command" in s:
                    out.append(("JSON config %d (%s)" % (i + 1, name), [s["command"]] + s.get("args", [])))
        for i, m in enumerate(re.finditer(r"<!-- readme-run: mcp-config -->\n```toml\n(.*?)```\n", self.readme, re.S)):
            for name, s in tomllib.loads(m.group(1)).get("mcp_servers", {}).items():
                out.append(("TOML config %d (%s)" % (i + 1, name), [s["command"]] + s.get("args", [])))
        for m in re.finditer(r"(?m)^(claude|codex) mcp add .* -- (.*)$", self.readme):
            out.append(("%s mcp add" % m.group(1), shlex.split(m.group(2))))
        return out

    def check_mcp(self):
        self.start_registry()
        cmds = self.mcp_commands()
        npx = [(w, a) for w, a in cmds if a[0] == "npx"]
        check(len(npx) >= 5, "%d MCP configurations run npx, want Claude Desktop/Cursor, Claude Code, VS Code and Codex (5 or more): %s" % (len(npx), cmds))
        d = self.path("mcp")
        os.makedirs(d)
        # One npm cache for all of them, empty at first: the first npx
        # fetches the package from the registry, as a client's first start does.
        env = self.npm_env(self.path("npm-cache-mcp"))
        env["MNEMO_DATA"] = self.path("mcp-data")
        for where, argv in npx:
            try:
                run([PY, os.path.join(HERE, "mcp_initialize.py"), "--expect-version", self.version, "--"] + argv, cwd=d, env=env)
            except Fail as e:
                raise Fail("%s: %s" % (where, e))
        return "%d configurations (%s) answered initialize and tools/list" % (len(npx), ", ".join(w for w, _ in npx))

    def check_workflows(self):
        tools = os.environ.get("MNEMO_DIST_TOOLS")
        actionlint = os.path.join(tools, "actionlint") if tools else shutil.which("actionlint")
        check(actionlint and os.path.exists(actionlint), "actionlint is not built (scripts/dist-check.sh builds it)")
        files = sorted(os.path.join(".github", "workflows", f) for f in os.listdir(os.path.join(ROOT, ".github", "workflows")))
        # With shellcheck on PATH, actionlint checks each run: script too.
        check(shutil.which("shellcheck"), "shellcheck is not installed (scripts/dist-check.sh installs it)")
        run([actionlint, "-pyflakes="] + files, cwd=ROOT)
        return "actionlint with shellcheck: %s" % ", ".join(os.path.basename(f) for f in files)

    def check_builders(self):
        out = run(["go", "-C", os.path.join(ROOT, "packaging", "tools"), "test", "-count=1", "./..."])
        run([sys.executable, "-m", "unittest", "discover", "-s", os.path.join(ROOT, "packaging", "python")])
        pkgs = [l.split()[1].rsplit("/", 1)[1] for l in out.splitlines() if l.startswith("ok")]
        return "go test packaging/tools: %s; unittest packaging/python" % ", ".join(pkgs)


CHECKS = ["archives", "npm", "python", "oci", "homebrew", "mcp", "workflows", "builders"]


def main(argv):
    if len(argv) < 2:
        sys.exit("usage: dist_check.py DIST [%s...]" % "|".join(CHECKS))
    dist = os.path.abspath(argv[1])
    names = argv[2:] or CHECKS
    for n in names:
        if n not in CHECKS:
            sys.exit("dist_check.py: no check %r: %s" % (n, ", ".join(CHECKS)))
    tmp = tempfile.mkdtemp(prefix="mnemo-dist-check-")
    os.chmod(tmp, 0o755)  # the image's user reads its root file system in here
    dc = DistCheck(dist, tmp)
    passed = failed = 0
    start = time.monotonic()
    try:
        for n in names:
            t = time.monotonic()
            try:
                what = getattr(dc, "check_" + n)()
                passed += 1
                print("ok   %-10s %5.1fs  %s" % (n, time.monotonic() - t, what), flush=True)
            except Fail as e:
                failed += 1
                print("FAIL %-10s %5.1fs  %s" % (n, time.monotonic() - t, e), flush=True)
            except Exception:
                failed += 1
                print("FAIL %-10s %5.1fs  %s" % (n, time.monotonic() - t, traceback.format_exc()), flush=True)
    finally:
        dc.close()
        if failed == 0:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print("dist-check: kept %s for a look" % tmp)
    print("dist-check: %s in %.0fs" % (dist, time.monotonic() - start))
    print("dist-check: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
