"""Where the documentation lives, and the generator of docs/configuration.md loaded from its file (docs/ is not a
package: the generator is a script, run as ``python docs/_gen_config.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"


def load_config_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_gen_config", DOCS / "_gen_config.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
