#!/bin/sh
# SPDX-License-Identifier: MIT
# Fails when a source file of the tree (C, Python, shell, CMake, the HTML
# report's script and style) lacks its SPDX-License-Identifier line in its
# first three lines. Usage: check_spdx.sh SOURCE_DIR.
set -eu
cd "$1"
missing=$( (echo CMakeLists.txt; find analyzer common launcher preload recorder tracepoints tests bench \
	examples scripts cmake docs .ci packaging -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.def' -o -name '*.py' -o -name '*.sh' \
	-o -name '*.cmake' -o -name CMakeLists.txt -o -name '*.js' -o -name '*.css' \
	-o -path .ci/run -o -path .ci/package \) ! -path '*/__pycache__/*' 2>/dev/null) |
	while read -r f; do
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier:' || echo "$f"
	done)
if [ -n "$missing" ]; then
	echo "check_spdx: these files have no SPDX-License-Identifier line (add" >&2
	echo "'SPDX-License-Identifier: MIT' as a comment on their first line):" >&2
	echo "$missing" >&2
	exit 1
fi
echo "check_spdx: every source file carries its SPDX line"
