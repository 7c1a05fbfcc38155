"""The Python client's build backend (PEP 517, PEP 660), in the tree.

It needs nothing but the standard library, so that ``pip install``,
``pip wheel`` and ``python -m build`` work with no package index (build
isolation installs the empty ``requires`` of pyproject.toml). It builds
what setuptools built for this project: the packages under src/, with
py.typed, core metadata from [project], a wheel, an sdist and an editable
wheel. Its output is reproducible: entries sorted, dated at
SOURCE_DATE_EPOCH (else 1980-01-01).
"""

import base64
import calendar
import gzip
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

__all__ = [
    "build_wheel",
    "build_sdist",
    "build_editable",
    "get_requires_for_build_wheel",
    "get_requires_for_build_sdist",
    "get_requires_for_build_editable",
    "prepare_metadata_for_build_wheel",
    "prepare_metadata_for_build_editable",
]


def _toml():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        raw = f.read()
    try:
        import tomllib
    except ImportError:  # Python 3.10
        return _mini_toml(raw.decode())
    return tomllib.loads(raw.decode())


def _mini_toml(text):
    """Enough TOML for this pyproject.toml on Python 3.10, which has no
    tomllib: tables, and keys whose values are strings or arrays of strings."""
    doc, table = {}, None
    text = re.sub(r"\[\s*\n(.*?)\]", lambda m: "[" + m.group(1).replace("\n", " ") + "]", text, flags=re.S)
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"\[([^\]]+)\]", line)
        if m:
            table = doc
            for part in m.group(1).split("."):
                table = table.setdefault(part.strip().strip('"'), {})
            continue
        key, _, value = line.partition("=")
        value = value.strip()
        if value.startswith("["):
            parsed = re.findall(r'"((?:[^"\\]|\\.)*)"', value)
        else:
            parsed = value.strip('"')
        table[key.strip().strip('"')] = parsed
    return doc


def _project():
    return _toml()["project"]


def _norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def _metadata():
    p = _project()
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + p["name"],
        "Version: " + p["version"],
        "Summary: " + p.get("description", ""),
    ]
    if "requires-python" in p:
        lines.append("Requires-Python: " + p["requires-python"])
    for dep in p.get("dependencies", []):
        lines.append("Requires-Dist: " + dep)
    for extra, deps in sorted(p.get("optional-dependencies", {}).items()):
        lines.append("Provides-Extra: " + extra)
        for dep in deps:
            lines.append('Requires-Dist: %s; extra == "%s"' % (dep, extra))
    body = ""
    readme = p.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = f.read()
    return ("\n".join(lines) + "\n\n" + body).encode()


def _dist_info():
    p = _project()
    return "%s-%s.dist-info" % (_norm(p["name"]), p["version"])


def _when():
    t = time.gmtime(max(int(os.environ.get("SOURCE_DATE_EPOCH", "0")), 315532800))
    return t[:6]


def _sources():
    """The files the wheel carries: (path in the wheel, path on disk)."""
    src = os.path.join(ROOT, "src")
    out = []
    for d, dirs, files in os.walk(src):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.endswith(".egg-info"))
        for name in sorted(files):
            if name.endswith(".py") or name == "py.typed":
                full = os.path.join(d, name)
                out.append((os.path.relpath(full, src).replace(os.sep, "/"), full))
    return out


def _hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _write_wheel(directory, files):
    p = _project()
    dist_info = _dist_info()
    files = list(files)
    files.append((dist_info + "/METADATA", _metadata()))
    files.append((dist_info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: mnemo_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join("%s,%s,%d\n" % (n, _hash(b), len(b)) for n, b in files) + dist_info + "/RECORD,,\n"
    files.append((dist_info + "/RECORD", record.encode()))
    name = "%s-%s-py3-none-any.whl" % (_norm(p["name"]), p["version"])
    with zipfile.ZipFile(os.path.join(directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, body in files:
            info = zipfile.ZipInfo(arc, date_time=_when())
            info.external_attr = 0o100644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, body)
    return name


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(arc, _read(full)) for arc, full in _sources()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # A .pth file puts src/ on sys.path: edits take effect without a rebuild.
    pth = (os.path.join(ROOT, "src") + "\n").encode()
    return _write_wheel(wheel_directory, [("_%s_editable.pth" % _norm(_project()["name"]), pth)])


def build_sdist(sdist_directory, config_settings=None):
    p = _project()
    base = "%s-%s" % (_norm(p["name"]), p["version"])
    names = ["pyproject.toml", "README.md", "_build/mnemo_build.py"]
    names += [os.path.relpath(full, ROOT).replace(os.sep, "/") for _, full in _sources()]
    mtime = calendar.timegm(_when() + (0, 0, 0))
    path = os.path.join(sdist_directory, base + ".tar.gz")
    with open(path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=mtime) as gz:
        with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
            members = [("PKG-INFO", _metadata())] + [(n, _read(os.path.join(ROOT, n))) for n in sorted(names)]
            for name, body in members:
                info = tarfile.TarInfo(base + "/" + name)
                info.size, info.mtime, info.mode = len(body), mtime, 0o644
                tar.addfile(info, io.BytesIO(body))
    return base + ".tar.gz"


def _prepare(metadata_directory):
    d = os.path.join(metadata_directory, _dist_info())
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "wb") as f:
        f.write(_metadata())
    return _dist_info()


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _prepare(metadata_directory)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _prepare(metadata_directory)


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []
