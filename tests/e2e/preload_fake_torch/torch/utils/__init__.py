# SPDX-License-Identifier: MIT
# Stand-in package (see torch/__init__.py).
