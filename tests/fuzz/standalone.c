/* SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB */
/* The fuzz targets' main() without libFuzzer (gcc builds): runs the target
 * once on each file named on the command line, as a libFuzzer binary does
 * when given files, so make check replays the regression inputs under
 * whatever sanitizers the build has. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	long len;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fseek(f, 0, SEEK_END) || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(path);
		fclose(f);
		return -1;
	}
	/* Exactly the input's size: a sanitizer sees any read past it. */
	data = malloc(len ? (size_t)len : 1);
	if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
		fprintf(stderr, "%s: cannot read\n", path);
		free(data);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(data, (size_t)len);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		if (run_file(argv[i]))
			return 1;
		printf("%s: ok\n", argv[i]);
	}
	return 0;
}
