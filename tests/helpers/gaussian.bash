# SPDX-License-Identifier: GPL-2.0-or-later
# A stand-in Gaussian installation, shaped like the real one: the Linda
# executables in g16/, and linda-exe/ holding symlinks to them. They are our
# own programs (tests/programs/linda_standin.c, g16-standin): Gaussian is
# commercial and cannot be installed here.
make_standin_gaussian() {
	local root=$1 exe
	mkdir -p "$root/g16/linda-exe"
	for exe in master.exel worker.exel; do
		cp "$BUILD/tests/linda_standin" "$root/g16/$exe"
		ln -s "../$exe" "$root/g16/linda-exe/$exe"
	done
	cp "$REPO/tests/programs/g16-standin" "$root/g16/g16"
	chmod -R a+rX "$root"
}

SETUP=$REPO/scripts/gaussian-ib-setup
LMOD_INIT=/usr/share/lmod/lmod/init/bash
