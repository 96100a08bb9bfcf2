/* SPDX-License-Identifier: MIT */
/* Test helper: an empty shared object standing in for libaccwatch.so, so the
 * launcher's tests do not depend on the recorder being built. */
int accwatch_run_stub_preload;
