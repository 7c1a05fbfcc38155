#!/usr/bin/env python3
"""Write mnemo's platform wheels (mnemo-server) from GoReleaser's binaries.

Each wheel carries one platform's mnemo binary as a script, so that pip,
pipx and uv put ``mnemo`` on PATH (the ruff pattern), and the small
``mnemo_server`` package, whose ``mnemo-server`` entry point runs it (so
that ``uvx mnemo-server`` and ``pipx run mnemo-server`` find a command of
the package's name). It needs Python 3.8 or newer and nothing else: the
wheel is a zip with METADATA, WHEEL, entry_points.txt and RECORD written
here (PEP 427, PEP 491, core metadata 2.1), its entries sorted and dated at
the commit, so that the same binaries give the same wheels.

Usage: build_wheels.py DIST
"""

import base64
import hashlib
import json
import os
import re
import sys
import time
import zipfile

NAME = "mnemo-server"
DIST_NAME = "mnemo_server"  # the name as a wheel's file and directories spell it
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
# The notices of the models embedded in the binary go with it.
NOTICES = ["embed/glove/data/NOTICE", "embed/use/data/NOTICE", "embed/use/data/LICENSE"]

# GoReleaser's platform to the wheel's platform tags. The binaries are
# static (CGO_ENABLED=0), so one wheel serves glibc and musl; Go 1.26 needs
# macOS 12.
PLATFORMS = {
    ("linux", "amd64"): "manylinux_2_17_x86_64.manylinux2014_x86_64.musllinux_1_1_x86_64",
    ("linux", "arm64"): "manylinux_2_17_aarch64.manylinux2014_aarch64.musllinux_1_1_aarch64",
    ("darwin", "amd64"): "macosx_12_0_x86_64",
    ("darwin", "arm64"): "macosx_12_0_arm64",
    ("windows", "amd64"): "win_amd64",
    ("windows", "arm64"): "win_arm64",
}


def pep440(version):
    """A GoReleaser version as PEP 440 spells it: 1.2.3 stays, a snapshot's
    1.2.4-dev.gabc1234 is 1.2.4.dev0+gabc1234, a 1.2.3-rc.1 is 1.2.3rc1."""
    m = re.fullmatch(r"v?(\d+\.\d+\.\d+)(?:-(.+))?", version)
    if not m:
        raise ValueError("version %r is not semver" % version)
    base, pre = m.groups()
    if not pre:
        return base
    dev = re.fullmatch(r"dev\.(g[0-9a-f]+)", pre)
    if dev:
        return "%s.dev0+%s" % (base, dev.group(1))
    rc = re.fullmatch(r"(a|alpha|b|beta|rc)\.?(\d+)", pre)
    if rc:
        return "%s%s%s" % (base, {"alpha": "a", "beta": "b"}.get(rc.group(1), rc.group(1)), rc.group(2))
    raise ValueError("pre-release %r has no PEP 440 spelling here" % pre)


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def zip_time(date):
    """A zip entry's date: the commit's (zip cannot go before 1980)."""
    t = time.gmtime(max(int(date), 315532800))
    return t[:6]


def metadata(version, readme):
    return (
        "Metadata-Version: 2.1\n"
        "Name: %s\n"
        "Version: %s\n"
        "Summary: mnemo, long-term and short-term memory for AI agents: the server, the MCP server and the CLI in one binary\n"
        "Home-page: https://github.com/mnemo-dev/mnemo\n"
        "Project-URL: Source, https://github.com/mnemo-dev/mnemo\n"
        "Keywords: mcp,memory,agents,llm\n"
        "Classifier: Programming Language :: Go\n"
        "Classifier: Topic :: Scientific/Engineering :: Artificial Intelligence\n"
        "Requires-Python: >=3.8\n"
        "Description-Content-Type: text/markdown\n"
        "\n%s" % (NAME, version, readme)
    )


def write_wheel(out_dir, version, plat, binary, exe, date):
    tag = "py3-none-" + plat
    dist_info = "%s-%s.dist-info" % (DIST_NAME, version)
    data = "%s-%s.data" % (DIST_NAME, version)
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    files = []  # (name, bytes, mode)
    for name in sorted(os.listdir(os.path.join(HERE, "mnemo_server"))):
        if name.endswith(".py"):
            with open(os.path.join(HERE, "mnemo_server", name), "rb") as f:
                files.append(("mnemo_server/" + name, f.read(), 0o644))
    with open(binary, "rb") as f:
        files.append(("%s/scripts/%s" % (data, exe), f.read(), 0o755))
    for n in NOTICES:
        with open(os.path.join(ROOT, n), "rb") as f:
            files.append(("%s/licenses/%s/%s" % (dist_info, n.split("/")[1], os.path.basename(n)), f.read(), 0o644))
    files.append((dist_info + "/METADATA", metadata(version, readme).encode(), 0o644))
    files.append((dist_info + "/WHEEL", ("Wheel-Version: 1.0\nGenerator: mnemo build_wheels.py\nRoot-Is-Purelib: false\n%s\n" % "\n".join("Tag: py3-none-" + p for p in plat.split("."))).encode(), 0o644))
    files.append((dist_info + "/entry_points.txt", b"[console_scripts]\nmnemo-server = mnemo_server.__main__:main\n", 0o644))
    record = "".join("%s,%s,%d\n" % (n, record_hash(b), len(b)) for n, b, _ in files) + dist_info + "/RECORD,,\n"
    files.append((dist_info + "/RECORD", record.encode(), 0o644))

    path = os.path.join(out_dir, "%s-%s-%s.whl" % (DIST_NAME, version, tag))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, body, mode in files:
            info = zipfile.ZipInfo(name, date_time=zip_time(date))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so that the mode is read
            z.writestr(info, body, compresslevel=6)
    return path


def main(argv):
    if len(argv) != 2:
        sys.exit("usage: build_wheels.py DIST")
    dist = os.path.abspath(argv[1])
    with open(os.path.join(dist, "metadata.json")) as f:
        meta = json.load(f)
    with open(os.path.join(dist, "artifacts.json")) as f:
        artifacts = json.load(f)
    version = pep440(meta["version"])
    date = os.environ.get("SOURCE_DATE_EPOCH", "0")
    out = os.path.join(dist, "python")
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.startswith(DIST_NAME + "-"):
            os.remove(os.path.join(out, old))
    built = 0
    for a in artifacts:
        if a.get("type") != "Binary" or a.get("extra", {}).get("ID") != "mnemo":
            continue
        plat = PLATFORMS.get((a["goos"], a["goarch"]))
        if plat is None:
            continue
        exe = "mnemo.exe" if a["goos"] == "windows" else "mnemo"
        binary = os.path.join(os.path.dirname(dist), a["path"]) if not os.path.isabs(a["path"]) else a["path"]
        print("wheel:", os.path.basename(write_wheel(out, version, plat, binary, exe, date)))
        built += 1
    if built == 0:
        sys.exit("build_wheels.py: no mnemo binary in %s/artifacts.json: run GoReleaser first" % dist)


if __name__ == "__main__":
    main(sys.argv)
