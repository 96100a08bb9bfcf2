/* SPDX-License-Identifier: MIT */
/* Damages copies of recorded traces for the robustness tests, reproducibly
 * (a seeded generator, not /dev/urandom):
 *   aw_damage random FILE SIZE SEED      FILE becomes SIZE random bytes
 *   aw_damage flip FILE COUNT SEED FROM  COUNT random bytes at offsets >= FROM
 *   aw_damage put64 FILE OFFSET VALUE    a little-endian uint64 at OFFSET
 *   aw_damage seqlen FILE VALUE          the length of the first sequence
 *       holding 0, 2, 4, ..., 14 (trace_gen's first batch of rank 0) becomes
 *       VALUE (little-endian uint32) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_random(uint64_t *state)
{
	/* xorshift64*: enough for bytes that only need to be arbitrary. */
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1DULL;
}

static unsigned char *load(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) != 0)
		goto fail;
	long len = ftell(f);
	if (len < 0 || fseek(f, 0, SEEK_SET) != 0)
		goto fail;
	unsigned char *data = malloc((size_t)len + 1);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len)
		goto fail;
	fclose(f);
	*size = (size_t)len;
	return data;
fail:
	perror(path);
	exit(2);
}

static void save(const char *path, const unsigned char *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 5 && strcmp(argv[1], "random") == 0) {
		size_t size = strtoull(argv[3], NULL, 0);
		uint64_t state = strtoull(argv[4], NULL, 0) | 1;
		unsigned char *data = malloc(size + 1);
		if (!data)
			return 2;
		for (size_t i = 0; i < size; i++)
			data[i] = (unsigned char)next_random(&state);
		save(argv[2], data, size);
		free(data);
		return 0;
	}
	if (argc >= 6 && strcmp(argv[1], "flip") == 0) {
		size_t size;
		unsigned char *data = load(argv[2], &size);
		unsigned long count = strtoul(argv[3], NULL, 0);
		uint64_t state = strtoull(argv[4], NULL, 0) | 1;
		size_t from = strtoull(argv[5], NULL, 0);
		for (unsigned long i = 0; i < count && from < size; i++) {
			size_t at = from + next_random(&state) % (size - from);
			data[at] = (unsigned char)next_random(&state);
		}
		save(argv[2], data, size);
		free(data);
		return 0;
	}
	if (argc >= 5 && strcmp(argv[1], "put64") == 0) {
		size_t size;
		unsigned char *data = load(argv[2], &size);
		size_t at = strtoull(argv[3], NULL, 0);
		uint64_t value = strtoull(argv[4], NULL, 0);
		if (at + sizeof(value) > size) {
			fprintf(stderr, "aw_damage: %s is too short\n",
				argv[2]);
			return 1;
		}
		memcpy(data + at, &value, sizeof(value));
		save(argv[2], data, size);
		free(data);
		return 0;
	}
	if (argc >= 4 && strcmp(argv[1], "seqlen") == 0) {
		size_t size;
		unsigned char *data = load(argv[2], &size);
		uint32_t pattern[8] = {0, 2, 4, 6, 8, 10, 12, 14};
		uint32_t value = (uint32_t)strtoul(argv[3], NULL, 0);
		for (size_t at = 4; at + sizeof(pattern) <= size; at++) {
			if (memcmp(data + at, pattern, sizeof(pattern)) == 0) {
				memcpy(data + at - 4, &value, sizeof(value));
				save(argv[2], data, size);
				free(data);
				return 0;
			}
		}
		fprintf(stderr, "aw_damage: no such sequence in %s\n", argv[2]);
		free(data);
		return 1;
	}
	fprintf(stderr, "usage: aw_damage random FILE SIZE SEED | flip FILE "
			"COUNT SEED FROM | put64 FILE OFFSET VALUE | seqlen "
			"FILE VALUE\n");
	return 2;
}
