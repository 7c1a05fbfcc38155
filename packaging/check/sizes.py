"""sizes.py prints, per platform of a `make dist` run, the size of what a
user downloads: the stripped binary, its archive, its npm package and its
wheel, in MiB; then the image's tarball.

Usage: sizes.py DIST
"""

import glob
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))
import build_wheels  # noqa: E402  (its PLATFORMS name each wheel's tag)

NPM_OS = {"windows": "win32"}
NPM_CPU = {"amd64": "x64"}


def mib(path):
    return "%7.1f" % (os.path.getsize(path) / 1048576) if path else "      -"


def one(pattern):
    got = glob.glob(pattern)
    return got[0] if len(got) == 1 else None


def main(dist):
    with open(os.path.join(dist, "artifacts.json")) as f:
        artifacts = json.load(f)
    archives = {(a["goos"], a["goarch"]): a["path"] for a in artifacts if a["type"] == "Archive"}
    print("  %-8s %-6s %7s %7s %7s %7s  (MiB)" % ("os", "arch", "binary", "archive", "npm", "wheel"))
    for a in sorted(artifacts, key=lambda a: (a.get("goos", ""), a.get("goarch", ""))):
        if a["type"] != "Binary":
            continue
        goos, goarch = a["goos"], a["goarch"]
        npm = one(os.path.join(dist, "npm", "mnemo-dev-mnemo-%s-%s-*.tgz" % (NPM_OS.get(goos, goos), NPM_CPU.get(goarch, goarch))))
        tag = build_wheels.PLATFORMS.get((goos, goarch))
        wheel = one(os.path.join(dist, "python", "mnemo_server-*-%s.whl" % tag)) if tag else None
        print("  %-8s %-6s %s %s %s %s" % (goos, goarch, mib(a["path"]), mib(archives.get((goos, goarch))), mib(npm), mib(wheel)))
    for t in sorted(glob.glob(os.path.join(dist, "oci", "*_oci.tar"))):
        print("  image    %s  %s" % (mib(t), os.path.basename(t)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: sizes.py DIST")
    main(sys.argv[1])
