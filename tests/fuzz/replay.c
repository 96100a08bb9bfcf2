/* SPDX-License-Identifier: MIT */
/* Runs the fuzz harness on files, without libFuzzer: the seeds and the
 * inputs that once crashed it stay tests in every build (gcc included).
 *   fuzz_replay FILE|DIR...  */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return 1;
	}
	uint8_t *data = NULL;
	size_t size = 0, cap = 0;
	for (;;) {
		if (size == cap) {
			cap = cap ? cap * 2 : 65536;
			data = realloc(data, cap);
			if (!data) {
				fclose(f);
				fprintf(stderr, "%s: out of memory\n", path);
				return 1;
			}
		}
		size_t n = fread(data + size, 1, cap - size, f);
		if (n == 0)
			break;
		size += n;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	printf("replayed %s (%zu bytes)\n", path, size);
	return 0;
}

static int replay(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		perror(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		perror(path);
		return 1;
	}
	int failed = 0;
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			size_t len =
			    strlen(path) + strlen(names[i]->d_name) + 2;
			char *child = malloc(len);
			if (child) {
				snprintf(child, len, "%s/%s", path,
					 names[i]->d_name);
				failed |= replay(child);
				free(child);
			}
		}
		free(names[i]);
	}
	free(names);
	return failed;
}

int main(int argc, char **argv)
{
	int failed = 0;
	for (int i = 1; i < argc; i++)
		failed |= replay(argv[i]);
	return failed;
}
