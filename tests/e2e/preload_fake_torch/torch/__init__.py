# SPDX-License-Identifier: MIT
# A stand-in for torch with the names libaccwatch patches, to test the
# preload on every Python version (Debian's torch exists for one only).
__version__ = "0.0+fake"
import torch.utils.data  # noqa: E402
import json  # noqa: E402,F401  (an import event after the DataLoader module)
