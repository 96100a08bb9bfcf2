# SPDX-License-Identifier: MIT
# Stand-in for torch.utils.data (see torch/__init__.py).
from .dataloader import DataLoader  # noqa: F401
