# SPDX-License-Identifier: MIT
# The Debian package (and a tarball): `cpack -G DEB` in the build directory
# makes accwatch_<version>_<arch>.deb of everything install() puts in place.
# Its library dependencies (liblttng-ust, liblttng-ctl, libbabeltrace2 (whose
# package holds the ctf and utils plugins accwatch-report runs), libunwind,
# CRoaring, xxHash, jansson) and their versions come from dpkg-shlibdeps;
# lttng-tools (the session daemon accwatch-run starts) is named. Chart.js is
# inlined into accwatch-report, so libjs-chart.js is a build dependency only.
set(CPACK_PACKAGE_NAME accwatch)
set(CPACK_PACKAGE_CONTACT "accwatch developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "finds data-loading bugs of distributed PyTorch training")
set(CPACK_PACKAGE_DESCRIPTION
  "accwatch-run records, through LTTng-UST, which dataset indices every rank
and DataLoader worker of a PyTorch job reads; accwatch-report reads the
trace and reports unsharded or overlapping ranks, missing samples, uneven
batches, dead workers and more.")
set(CPACK_GENERATOR "TGZ;DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "lttng-tools")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "python3-torch")
include(CPack)
