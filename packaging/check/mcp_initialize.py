#!/usr/bin/env python3
"""Run an MCP server command as an MCP client spawns it, over stdio, and
check that it answers: initialize, then tools/list, then it exits when its
standard input closes. It prints the server's name and version and the
number of tools, and exits 1 with the reason when any of that fails.

Usage: mcp_initialize.py [--expect-version V] [--cwd DIR] -- COMMAND ARGS...
"""

import argparse
import json
import queue
import subprocess
import sys
import threading

TIMEOUT = 120  # seconds for each answer: npx may unpack a package first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-version")
    ap.add_argument("--cwd")
    ap.add_argument("command", nargs="+")
    args = ap.parse_args()

    proc = subprocess.Popen(args.command, cwd=args.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = queue.Queue()

    def read():
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    stderr = []
    threading.Thread(target=lambda: stderr.extend(proc.stderr), daemon=True).start()

    def fail(msg):
        proc.kill()
        proc.wait()
        tail = b"".join(stderr[-20:]).decode(errors="replace")
        sys.exit("mcp_initialize: %s: %s\n%s" % (" ".join(args.command), msg, tail))

    def send(msg):
        proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()

    def answer(id):
        while True:
            try:
                line = lines.get(timeout=TIMEOUT)
            except queue.Empty:
                fail("no answer to request %d in %ds" % (id, TIMEOUT))
            if line is None:
                fail("exited with %s before answering request %d" % (proc.wait(), id))
            msg = json.loads(line)
            if msg.get("id") == id:
                if "error" in msg:
                    fail("request %d: %s" % (id, msg["error"]))
                return msg["result"]

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "mnemo-dist-check", "version": "1"}}})
    init = answer(1)
    info = init.get("serverInfo", {})
    if info.get("name") != "mnemo":
        fail("serverInfo %r: want name mnemo" % info)
    if args.expect_version and info.get("version") != args.expect_version:
        fail("serverInfo version %r: want %r" % (info.get("version"), args.expect_version))
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    tools = [t["name"] for t in answer(2).get("tools", [])]
    if "recall" not in tools or "remember" not in tools:
        fail("tools %s: want remember and recall among them" % tools)
    proc.stdin.close()
    try:
        code = proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        fail("still running 30s after its standard input closed")
    if code != 0:
        fail("exit status %d after its standard input closed" % code)
    print("mcp: %s %s, protocol %s, %d tools" % (info.get("name"), info.get("version"), init.get("protocolVersion"), len(tools)))


if __name__ == "__main__":
    main()
