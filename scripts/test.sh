#!/bin/sh
# SPDX-License-Identifier: MIT
# Quick start, part two: set up and run the whole test suite (unit tests and
# end-to-end scenarios with real torch ranks and real LTTng sessions).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
build=${ACCWATCH_BUILD_DIR:-$here/build}
"$here/scripts/setup.sh"
cd "$build"
exec ctest --output-on-failure --no-label-summary -j "$(nproc)" "$@"
