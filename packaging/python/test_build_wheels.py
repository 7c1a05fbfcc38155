"""Tests of build_wheels.py's version spelling and wheel layout
(python3 -m unittest discover -s packaging/python)."""

import os
import tempfile
import unittest
import zipfile

import build_wheels


class PEP440(unittest.TestCase):
    def test_versions(self):
        for semver, want in [
            ("1.2.3", "1.2.3"),
            ("v1.2.3", "1.2.3"),
            ("0.0.1-dev.g7962658", "0.0.1.dev0+g7962658"),
            ("1.2.3-rc.1", "1.2.3rc1"),
            ("1.2.3-beta.2", "1.2.3b2"),
        ]:
            self.assertEqual(build_wheels.pep440(semver), want, semver)

    def test_unspellable(self):
        for bad in ("1.2", "1.2.3-snapshot", "latest"):
            with self.assertRaises(ValueError, msg=bad):
                build_wheels.pep440(bad)


class Wheel(unittest.TestCase):
    def test_layout(self):
        """The binary is an executable script of the .data directory, RECORD
        lists every file with its hash, and two builds are the same bytes."""
        with tempfile.TemporaryDirectory() as d:
            binary = os.path.join(d, "mnemo")
            with open(binary, "wb") as f:
                f.write(b"\x7fELF stand-in")
            paths = []
            for out in ("a", "b"):
                os.mkdir(os.path.join(d, out))
                paths.append(build_wheels.write_wheel(os.path.join(d, out), "1.2.3", build_wheels.PLATFORMS[("linux", "amd64")], binary, "mnemo", "1700000000"))
            with open(paths[0], "rb") as a, open(paths[1], "rb") as b:
                self.assertEqual(a.read(), b.read())
            with zipfile.ZipFile(paths[0]) as z:
                info = z.getinfo("mnemo_server-1.2.3.data/scripts/mnemo")
                self.assertEqual(info.external_attr >> 16 & 0o777, 0o755)
                record = z.read("mnemo_server-1.2.3.dist-info/RECORD").decode().splitlines()
                self.assertEqual(sorted(l.split(",")[0] for l in record), sorted(z.namelist()))
                wheel = z.read("mnemo_server-1.2.3.dist-info/WHEEL").decode()
                self.assertIn("Tag: py3-none-musllinux_1_1_x86_64", wheel)
                self.assertIn("Root-Is-Purelib: false", wheel)
                self.assertIn("mnemo-server = mnemo_server.__main__:main", z.read("mnemo_server-1.2.3.dist-info/entry_points.txt").decode())
                self.assertIn("mnemo_server-1.2.3.dist-info/licenses/glove/NOTICE", z.namelist())
            self.assertTrue(os.path.basename(paths[0]).startswith("mnemo_server-1.2.3-py3-none-manylinux_2_17_x86_64."))


if __name__ == "__main__":
    unittest.main()
