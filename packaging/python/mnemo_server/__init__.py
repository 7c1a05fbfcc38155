"""mnemo, long-term and short-term memory for AI agents, as a Python package.

The wheel carries the mnemo binary of its platform, which the installer puts
on PATH as ``mnemo``; ``mnemo-server`` and ``python -m mnemo_server`` run the
same binary.
"""

import os
import sysconfig

__all__ = ["find_mnemo_bin"]


def find_mnemo_bin() -> str:
    """Return the path of the mnemo binary this package installed."""
    exe = "mnemo" + (sysconfig.get_config_var("EXE") or "")
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    user = sysconfig.get_preferred_scheme("user") if hasattr(sysconfig, "get_preferred_scheme") else None
    if user:
        candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=user), exe))
    # A --target or --prefix install: the scripts directory beside the
    # package's site-packages.
    pkg = os.path.dirname(os.path.abspath(__file__))
    candidates.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(pkg))), "bin", exe))
    candidates.append(os.path.join(os.path.dirname(pkg), "bin", exe))
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError("the mnemo binary is not where this package installed it: looked in " + ", ".join(candidates))
