# SPDX-License-Identifier: MIT
# The counts of the e2e shell tests' checks, sourced by them: pass, and fail
# with what went wrong (printed); each prints its totals from $passed and
# $failed at the end and fails when $failed is not 0.
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}
