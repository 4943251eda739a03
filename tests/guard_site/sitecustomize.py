"""Puts every Python process the test suite starts under the no-network guard (tests/no_network.py).

Only on PYTHONPATH while the tests run (the conftest adds it); does nothing without the log
variable, so a stray import elsewhere changes nothing.
"""

import os

if os.environ.get("DIVEVAL_NETWORK_LOG"):
    import importlib.util

    _path = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "no_network.py"
    )
    _spec = importlib.util.spec_from_file_location("_diveval_no_network", _path)
    if _spec is not None and _spec.loader is not None:
        _module = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(_module)
        _module.install()
