#!/usr/bin/env bash
# tools/mutate.sh [--list FILE] [--scratch DIR] [--jobs N] [--skip-baseline] [NAME...] — applies each
# mutation of tools/mutations.txt to a scratch copy of the checkout, builds the targets it names, runs the
# tests it names, and prints the survivors (docs/mutations.md). Not part of CI (tens of minutes): run it
# before a change to the runtime's core lands. Exit 0: every mutation caught.
exec python3 "$(dirname "$0")/mutate.py" "$@"
