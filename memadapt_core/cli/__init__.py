"""The ``memadapt`` command (``memadapt = "memadapt_core.cli:main"``): its arguments and dispatch (``command``),
the record commands (``records``), the terminal chat (``chat``), ``doctor`` and the child process it reads a damaged
store in (``doctor_child``), and what they share (``output``: exit codes, scope options, result lines)."""

from .command import EXIT_CODES, main

__all__ = ["EXIT_CODES", "main"]
