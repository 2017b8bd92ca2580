/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * say_line LENGTH...: for each LENGTH, ibnet_say_line writes a line of that
 * many bytes ("L<length>:" then x's) to stderr (tests/unit/stderr-lines.bats
 * reads its writes through tests/programs/stderr_writes.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ibnet_say_line.h"

int main(int argc, char **argv)
{
	static char text[16384];
	int i;

	for (i = 1; i < argc; i++) {
		long len = strtol(argv[i], NULL, 10);
		int head;

		if (len < 0 || len >= (long)sizeof(text)) {
			fprintf(stdout, "say_line: %s: not a length from 0 to %zu\n", argv[i],
				sizeof(text) - 1);
			return 2;
		}
		head = snprintf(text, sizeof(text), "L%ld:", len);
		if (head > len)
			head = (int)len;
		memset(text + head, 'x', (size_t)(len - head));
		text[len] = '\0';
		ibnet_say_line("%s", text);
	}
	return 0;
}
