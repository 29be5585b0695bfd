"""Golden files for the renderer tests: ``UPDATE_GOLDEN=1 pytest tests/bot/present/render``
rewrites them from the current renderers (look at the PNGs before committing)."""

from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
