/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fake_libbpf.c - a stand-in libbpf.so.1 for the BPF tier's loader test
 * (tests/unit/tcp-floor-bpf.bats) that fails as libbpf before 1.0 does
 * without its strict mode: an error pointer (-errno cast to a pointer), not
 * NULL. FAKE_LIBBPF_FAIL=open: bpf_object__open_mem returns ERR_PTR(-EINVAL);
 * =attach: the object "loads" and bpf_program__attach_cgroup returns
 * ERR_PTR(-EPERM). Nothing here touches the kernel.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char dummy[64];

static int failing(const char *what)
{
	const char *f = getenv("FAKE_LIBBPF_FAIL");

	return f && !strcmp(f, what);
}

void *bpf_object__open_mem(const void *buf, size_t size, const void *opts)
{
	(void)buf, (void)size, (void)opts;
	return failing("open") ? (void *)(long)-EINVAL : dummy;
}

/* What the loader called before issue 50 (by name, not by its checked bytes). */
void *bpf_object__open_file(const char *path, const void *opts)
{
	(void)path, (void)opts;
	return failing("open") ? (void *)(long)-EINVAL : dummy;
}

int bpf_object__load(void *obj) { (void)obj; return 0; }
void bpf_object__close(void *obj) { (void)obj; }
void *bpf_object__find_map_by_name(const void *obj, const char *name)
{
	(void)obj;
	return strcmp(name, ".kconfig") ? dummy : NULL;
}
void *bpf_object__find_program_by_name(const void *obj, const char *name)
{
	(void)obj, (void)name;
	return dummy;
}
int bpf_map__update_elem(const void *m, const void *k, size_t ks, const void *v, size_t vs,
			 unsigned long long flags)
{
	(void)m, (void)k, (void)ks, (void)v, (void)vs, (void)flags;
	return 0;
}
int bpf_map__lookup_elem(const void *m, const void *k, size_t ks, void *v, size_t vs,
			 unsigned long long flags)
{
	(void)m, (void)k, (void)ks, (void)flags;
	memset(v, 0, vs);
	return 0;
}
void *bpf_program__attach_cgroup(const void *prog, int fd)
{
	(void)prog, (void)fd;
	return failing("attach") ? (void *)(long)-EPERM : dummy;
}
int bpf_link__destroy(void *link) { (void)link; return 0; }
void *libbpf_set_print(void *fn) { (void)fn; return NULL; }
int libbpf_num_possible_cpus(void) { return 1; }
const void *bpf_map__initial_value(const void *m, size_t *size)
{
	(void)m;
	*size = 0;
	return NULL;
}
