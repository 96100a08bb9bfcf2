/* SPDX-License-Identifier: MIT */
/* libFuzzer harness on the metadata framing check (aw_metadata_check,
 * analyzer/read/trace_dirs.c), which stands between a damaged metadata
 * file and babeltrace2 2.0 (it loops forever on metadata cut inside a
 * packet): the input is the metadata file of a trace directory. What the
 * check passes as packetized must really be whole packets: the harness
 * walks them itself and aborts on one the check should have refused. */
#define _GNU_SOURCE
#include <byteswap.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_util.h"
#include "trace_dirs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define AW_MAGIC 0x75D11D57u
#define AW_HEADER 37

static uint32_t aw_u32(const uint8_t *p, bool swap)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return swap ? bswap_32(v) : v;
}

/* Whether data is a sequence of whole packets, each header sane (CTF 1.8
 * packetized metadata), or plain text. */
static bool aw_framed(const uint8_t *data, size_t size)
{
	if (size < 4)
		return false;
	uint32_t magic = aw_u32(data, false);
	if (magic != AW_MAGIC && magic != bswap_32(AW_MAGIC))
		return true;
	bool swap = magic != AW_MAGIC;
	for (size_t at = 0; at < size;) {
		if (size - at < AW_HEADER ||
		    aw_u32(data + at, swap) != AW_MAGIC)
			return false;
		uint32_t content = aw_u32(data + at + 24, swap);
		uint32_t packet = aw_u32(data + at + 28, swap);
		if (packet % 8 || packet < AW_HEADER * 8 ||
		    content < AW_HEADER * 8 || content > packet ||
		    packet / 8 > size - at)
			return false;
		at += packet / 8;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = aw_fuzz_scratch();
	char path[512], error[1024] = "";
	snprintf(path, sizeof(path), "%s/metadata", root);
	if (!aw_fuzz_write(path, data, size))
		abort();
	enum aw_metadata_status status =
	    aw_metadata_check(root, error, sizeof(error));
	bool framed = aw_framed(data, size);
	if ((status == AW_METADATA_OK) != framed) {
		fprintf(stderr,
			"fuzz_metadata: the check says %s, the packets are "
			"%s (%s)\n",
			status == AW_METADATA_OK ? "ok" : "corrupt",
			framed ? "whole" : "not whole", error);
		abort();
	}
	if (status != AW_METADATA_OK && !strstr(error, root)) {
		fprintf(stderr, "fuzz_metadata: the error names no file: %s\n",
			error);
		abort();
	}
	remove(path);
	return 0;
}
