# SPDX-License-Identifier: GPL-2.0-or-later
# The model at scale (included by the Makefile; development only): the paced
# library's own code under SimGrid's SMPI with ns-3's TCP (devel/smpi-model,
# its README; built by devel/smpi-model/build.mk against Debian 12's SimGrid
# and ns-3, installed by devel/install-deps --model). Nothing here is built
# by 'make' or installed.
#   make model-projections  the grid of cells that take minutes
#                           (devel/smpi-model/project; 25 minutes whole on 2
#                           cores, 256 x 1 at 10 Gbit/s among them) into
#                           docs/bench/at-scale-projections.{csv,md,png}
#   make model-projections-long  then the cells of 10 minutes to hours
#                           (project --long: the paced library and auto at
#                           256 x 1 at 25 and 100 Gbit/s and in its tree, at
#                           64 x 8), their rows added to the same files
#   make model-smoke        tests/model: the calibrated cells, the bounds and
#                           the library's bytes under SMPI (CI runs it)
.PHONY: model-projections model-projections-long model-smoke

model-projections:
	devel/install-deps --model
	devel/smpi-model/project $(B)/model-projections
	cp $(B)/model-projections/projections.csv docs/bench/at-scale-projections.csv
	cp $(B)/model-projections/at-scale-projections.md $(B)/model-projections/at-scale-projections.png docs/bench/

# After model-projections (its rows kept: --keep).
model-projections-long:
	devel/install-deps --model
	devel/smpi-model/project --long --keep $(B)/model-projections
	cp $(B)/model-projections/projections.csv docs/bench/at-scale-projections.csv
	cp $(B)/model-projections/at-scale-projections.md $(B)/model-projections/at-scale-projections.png docs/bench/

model-smoke:
	devel/install-deps --model
	bats --tap --timing tests/model
