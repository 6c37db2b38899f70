"""What canopy's plot scripts share: matplotlib without a display, or one message naming the package.

The scripts (plot_graph_experiment.py, plot_hrf_experiment.py, plot_timeline.py) run by path, so this
module, beside them, is importable as `plot_common`.
"""

import json
import math

NUMBER = (int, float)

INSTALL_HINT = "matplotlib is not installed: apt-get install python3-matplotlib (tools/deps.sh installs it)"


def headless_pyplot():
    """matplotlib.pyplot on the Agg backend (PNG files, no display); ImportError(INSTALL_HINT) without it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(INSTALL_HINT) from None
    return plt


class InputError(Exception):
    """The JSON file cannot be plotted; the message says why."""


def need(obj, key, kind, where):
    """obj[key] if obj is an object whose key holds a value of kind (str, list, dict or NUMBER)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    bad = isinstance(value, bool) or not isinstance(value, kind)
    if not bad and kind is NUMBER and not math.isfinite(value):
        bad = True
    if bad:
        what = {str: "a string", list: "a list", dict: "an object", NUMBER: "a finite number"}[kind]
        raise InputError(f"{where}: '{key}' is missing or not {what}")
    return value


def read_json(path):
    """The file's JSON, or InputError saying why it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise InputError(f"cannot read it: {e.strerror}") from None
    except ValueError as e:  # json.JSONDecodeError, UnicodeDecodeError
        raise InputError(f"not valid JSON: {e}") from None
