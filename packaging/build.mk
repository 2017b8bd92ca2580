# SPDX-License-Identifier: GPL-2.0-or-later
# The packages (included by the Makefile): both install with the one
# INSTALL_LIST of packaging/install.mk (the Debian package through make
# install, the RPM's %files through make rpm-files), and both require the
# Slurm release that packaging/slurm-release reads.

.PHONY: dist deb rpm
# The source as it is in the work tree (tracked and new files, not ignored ones),
# for the package builds.
DIST = $(B)/dist/spank-ibnet-$(VERSION)
dist:
	rm -rf $(B)/dist && mkdir -p $(DIST)
	git ls-files -z --cached --others --exclude-standard | \
	    xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
	    tar --null -T - -cf - | tar -xf - -C $(DIST)
	tar -C $(B)/dist -czf $(B)/dist/spank-ibnet-$(VERSION).tar.gz spank-ibnet-$(VERSION)

# Debian: packaging/debian becomes the tree's debian/; dpkg-buildpackage writes
# the .deb beside the tree, in build/deb/. lintian's errors fail the target.
deb: dist
	rm -rf $(B)/deb && mkdir -p $(B)/deb
	cp -a $(DIST) $(B)/deb/ && cp -a packaging/debian $(B)/deb/spank-ibnet-$(VERSION)/debian
	cd $(B)/deb/spank-ibnet-$(VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error --info $(B)/deb/spank-ibnet_$(VERSION)_*.changes

# RPM, with RHEL's paths. --nodeps: this Debian machine's rpm database does not
# hold slurm-devel (BuildRequires); the Slurm headers come from libslurm-dev.
# The Slurm release the package requires is read here, by packaging/slurm-release,
# as the Debian package reads it.
RPM_TOP = $(CURDIR)/$(B)/rpm
rpm: dist
	rm -rf $(RPM_TOP) && mkdir -p $(RPM_TOP)/SOURCES
	cp $(B)/dist/spank-ibnet-$(VERSION).tar.gz $(RPM_TOP)/SOURCES/
	rpmbuild -bb --nodeps --define '_topdir $(RPM_TOP)' --define 'version_from_tree $(VERSION)' \
	    --define "slurm_release $$(packaging/slurm-release)" \
	    --define "slurm_next $$(packaging/slurm-release --next)" \
	    packaging/rpm/spank-ibnet.spec
