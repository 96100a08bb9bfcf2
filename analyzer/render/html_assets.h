/* SPDX-License-Identifier: MIT */
/* The HTML report's assets, generated from their files at build time
 * (cmake/embed.cmake): Chart.js, the page's script, its style sheet. */
#ifndef AW_HTML_ASSETS_H
#define AW_HTML_ASSETS_H

#include <stddef.h>

extern const unsigned char aw_html_chartjs[], aw_html_js[], aw_html_css[];
extern const size_t aw_html_chartjs_len, aw_html_js_len, aw_html_css_len;

#endif
