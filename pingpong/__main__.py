"""`python -m pingpong`: the `pingpong` command, for when its script is not on the PATH."""

import sys

from pingpong.tui.cli import entry

sys.exit(entry())
