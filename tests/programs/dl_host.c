/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dl_host.c - a program that loads its MPI the way Python, R and Julia load
 * an extension: not linked to libmpi, it dlopen()s MODULE with
 * RTLD_NOW | RTLD_LOCAL, so libmpi and its symbols stay out of the global
 * scope, and runs the module's dl_module_main().
 *
 *   dl_host MODULE
 *
 * Exits with what dl_module_main returns; 2 when the module does not load.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *module;
	int (*run)(void);

	if (argc != 2) {
		fprintf(stderr, "usage: dl_host MODULE\n");
		return 2;
	}
	module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!module) {
		fprintf(stderr, "dl_host: %s\n", dlerror());
		return 2;
	}
	*(void **)&run = dlsym(module, "dl_module_main");
	if (!run) {
		fprintf(stderr, "dl_host: %s\n", dlerror());
		return 2;
	}
	return run();
}
