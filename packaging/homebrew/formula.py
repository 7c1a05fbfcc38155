#!/usr/bin/env python3
"""Write mnemo's Homebrew formula from the release's archives.

It reads GoReleaser's metadata.json and checksums.txt in DIST and writes
DIST/homebrew/mnemo.rb: one url and sha256 per macOS and Linux platform,
pointing at the GitHub release of the version (the release workflow
uploads the archives there and commits the formula to the tap,
mnemo-dev/homebrew-tap).

Usage: formula.py DIST [--base-url URL]
"""

import argparse
import json
import os

RELEASES = "https://github.com/mnemo-dev/mnemo/releases/download"

TEMPLATE = """\
# mnemo's Homebrew formula, written by packaging/homebrew/formula.py from
# the release's checksums: do not edit it in the tap.
class Mnemo < Formula
  desc "Long-term and short-term memory for AI agents: server, MCP server and CLI"
  homepage "https://github.com/mnemo-dev/mnemo"
  version "{version}"

  on_macos do
{macos}
  end

  on_linux do
{linux}
  end

  def install
    bin.install "mnemo"
  end

  service do
    run [opt_bin/"mnemo", "serve"]
    keep_alive true
    log_path var/"log/mnemo.log"
    error_log_path var/"log/mnemo.log"
  end

  test do
    assert_match version.to_s, shell_output("#{{bin}}/mnemo --version")
  end
end
"""


def block(cpu, url, sha):
    return '    on_%s do\n      url "%s"\n      sha256 "%s"\n    end' % (cpu, url, sha)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dist")
    ap.add_argument("--base-url", default=None, help="where the archives are (default: the GitHub release of the version)")
    args = ap.parse_args()
    with open(os.path.join(args.dist, "metadata.json")) as f:
        meta = json.load(f)
    version = meta["version"]
    base = args.base_url or "%s/v%s" % (RELEASES, version)
    sums = {}
    with open(os.path.join(args.dist, "checksums.txt")) as f:
        for line in f:
            sha, name = line.split()
            sums[name] = sha
    parts = {"darwin": [], "linux": []}
    for goos in parts:
        for arch, cpu in (("amd64", "intel"), ("arm64", "arm")):
            name = "mnemo_%s_%s_%s.tar.gz" % (version, goos, arch)
            if name in sums:
                parts[goos].append(block(cpu, "%s/%s" % (base, name), sums[name]))
    if not parts["darwin"] and not parts["linux"]:
        raise SystemExit("formula.py: no macOS or Linux archive in %s/checksums.txt" % args.dist)
    out = os.path.join(args.dist, "homebrew")
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "mnemo.rb")
    with open(path, "w") as f:
        f.write(TEMPLATE.format(version=version, macos="\n".join(parts["darwin"]) or "    # no macOS archive in this build",
                                linux="\n".join(parts["linux"]) or "    # no Linux archive in this build"))
    print("homebrew:", path)


if __name__ == "__main__":
    main()
