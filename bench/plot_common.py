"""What canopy's plot scripts share: matplotlib without a display, or one message naming the package.

The scripts (plot_graph_experiment.py, plot_hrf_experiment.py, plot_timeline.py) run by path, so this
module, beside them, is importable as `plot_common`.
"""

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
