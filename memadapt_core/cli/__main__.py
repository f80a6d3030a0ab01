"""``python -m memadapt_core.cli``: the ``memadapt`` command."""

from .command import main

raise SystemExit(main())
