#!/usr/bin/env python3
"""Run an unpacked container image as a runtime would, and check it serves.

It must run as root in a network namespace of its own (dist_check.py runs
it under `unshare --net`), so that the image's own address, 0.0.0.0:7077,
is free. It brings the loopback interface up, then starts the config's
entrypoint and command in a chroot of the root file system, as the
config's user, in its working directory, with its environment and
MNEMO_KEY (docker run -e MNEMO_KEY=…), and checks: /healthz answers with
the version; a write without the key is refused (401) and one with it is
taken; the server runs as the config's user and keeps its store in /data;
the config's health check passes while it serves and fails once it has
stopped; it stops on SIGTERM with status 0.

Usage: oci_run.py ROOTFS CONFIG.json KEY VERSION
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request


def spawn(rootfs, cfg, argv, env, log):
    """Fork a child that chroots into rootfs, becomes the config's user and
    runs argv; its pid."""
    uid, _, gid = cfg.get("User", "0:0").partition(":")
    out = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(out, 1)
            os.dup2(out, 2)
            os.chroot(rootfs)
            os.chdir(cfg.get("WorkingDir") or "/")
            os.setgroups([])
            os.setgid(int(gid or uid))
            os.setuid(int(uid))
            os.execve(argv[0], argv, env)
        except BaseException as e:  # the child must never return
            os.write(2, ("oci_run: cannot start %s: %s\n" % (argv, e)).encode())
        os._exit(127)
    os.close(out)
    return pid


def http(method, url, key=None, body=None):
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = "Bearer " + key
    req = urllib.request.Request(url, data=body and json.dumps(body).encode(), headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def main(rootfs, config_path, key, version):
    with open(config_path) as f:
        cfg = json.load(f)["config"]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    env = dict(e.split("=", 1) for e in cfg.get("Env", []))
    env["MNEMO_KEY"] = key
    log = os.path.join(os.path.dirname(config_path), "oci-serve.log")
    argv = cfg["Entrypoint"] + cfg.get("Cmd", [])
    pid = spawn(rootfs, cfg, argv, env, log)

    def fail(msg):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        with open(log) as f:
            sys.exit("oci_run: %s\n%s" % (msg, f.read()[-3000:]))

    base = "http://127.0.0.1:7077"
    for _ in range(600):
        try:
            status, body = http("GET", base + "/healthz")
            break
        except (urllib.error.URLError, ConnectionError):
            if os.waitpid(pid, os.WNOHANG) != (0, 0):
                fail("%s exited before serving" % argv)
            time.sleep(0.1)
    else:
        fail("no /healthz in 60s")
    if status != 200 or json.loads(body).get("version") != version:
        fail("/healthz: %d %s, want version %s" % (status, body, version))
    memory = {"agent_id": "dist-check", "key": "/image/check", "content": "The image serves"}
    status, body = http("POST", base + "/v1/memories", body=memory)
    if status != 401:
        fail("a write without the key: %d %s, want 401" % (status, body))
    status, body = http("POST", base + "/v1/memories", key=key, body=memory)
    if status not in (200, 201):
        fail("a write with MNEMO_KEY: %d %s" % (status, body))
    with open("/proc/%d/status" % pid) as f:
        uids = [l.split()[1:] for l in f if l.startswith("Uid:")][0]
    want_uid = cfg["User"].split(":")[0]
    if set(uids) != {want_uid}:
        fail("the server runs as uid %s, want %s" % (uids, want_uid))
    data = os.path.join(rootfs, "data")
    owned = [n for n in os.listdir(data) if str(os.stat(os.path.join(data, n)).st_uid) == want_uid]
    if not owned:
        fail("the store is not in /data: %s" % os.listdir(data))
    test = cfg.get("Healthcheck", {}).get("Test", [])
    if test[:1] != ["CMD"]:
        fail("health check %r: want CMD …" % test)

    def healthcheck():
        hpid = spawn(rootfs, cfg, test[1:], env, log)
        return os.waitstatus_to_exitcode(os.waitpid(hpid, 0)[1])

    if healthcheck() != 0:
        fail("the health check %s failed while the server serves" % test[1:])
    os.kill(pid, signal.SIGTERM)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 0:
        fail("exit status %d on SIGTERM, want 0" % code)
    if healthcheck() == 0:
        fail("the health check %s passed with the server stopped" % test[1:])
    print("%s as uid %s in a chroot: /healthz %s, 401 without the key, write with it, store in /data, health check passes, then fails once stopped" % (" ".join(argv), want_uid, version))


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: oci_run.py ROOTFS CONFIG.json KEY VERSION")
    main(*sys.argv[1:])
