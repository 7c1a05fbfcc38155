"""``python -m mnemo_server`` and the ``mnemo-server`` command: run mnemo."""

import os
import subprocess
import sys

from mnemo_server import find_mnemo_bin


def main() -> None:
    mnemo = find_mnemo_bin()
    if sys.platform == "win32":
        # Windows has no exec: run it and pass its status on.
        sys.exit(subprocess.run([mnemo, *sys.argv[1:]]).returncode)
    os.execv(mnemo, [mnemo, *sys.argv[1:]])


if __name__ == "__main__":
    main()
