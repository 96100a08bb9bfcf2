# SPDX-License-Identifier: MIT
# Stand-in for torch.utils.data._utils (see torch/__init__.py).
from . import fetch, worker  # noqa: F401
