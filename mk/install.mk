# install.mk - `make install [PORT=<name>] [PREFIX=/usr/local] [DESTDIR=]`:
# the port's library, the public headers, zerolag.pc for pkg-config and a
# CMake package (find_package(zerolag CONFIG), target zerolag::zerolag).
#
#   PREFIX/lib/libzerolag.a                  the library of PORT (one prefix a port)
#   PREFIX/include/zerolag/                  zerolag.h, what it includes, the port's zl_port.h
#   PREFIX/lib/pkgconfig/zerolag.pc          Cflags -I.../include/zerolag
#   PREFIX/lib/cmake/zerolag/                zerolagConfig.cmake, zerolagConfigVersion.cmake
#
# With USER_CONFIG_DIR the library is built with that zl_user_config.h, the
# file is installed with the headers and both packages define ZL_USER_CONFIG
# for their users: an application gets the library's configuration without
# a flag of its own.

PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_ROOT := $(DESTDIR)$(PREFIX)
# The public headers: the umbrella, the port's zl_port.h and every header
# they include, as the compiler finds them (the user's config too).
PUBLIC_HEADERS = $(sort $(filter %.h,$(shell $(CC) $(INC) $(CONFIG_CFLAGS) -MM \
	$(ZL_UMBRELLA) $(PORT_DIR)/zl_port.h)))
# "0.1.0", from core/base/zl_version.h.
ZL_VERSION_TEXT := $(shell awk '/^\#define ZL_VERSION_(MAJOR|MINOR|PATCH) /{v = v s $$3; s = "."} \
	END {print v}' core/base/zl_version.h)
INSTALL_DEFINES := $(if $(USER_CONFIG_DIR),ZL_USER_CONFIG)
# Each template's @NAME@ words: pkg-config wants flags, CMake lists.
INSTALL_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@PORT@|$(PORT)|' \
	-e 's|@VERSION@|$(ZL_VERSION_TEXT)|' -e 's|@MAJOR@|$(firstword $(subst ., ,$(ZL_VERSION_TEXT)))|'

.PHONY: install public-headers check-install
install: $(BUILD)/libzerolag.a
	install -d $(INSTALL_ROOT)/lib/pkgconfig $(INSTALL_ROOT)/lib/cmake/zerolag \
		$(INSTALL_ROOT)/include/zerolag
	install -m 644 $(BUILD)/libzerolag.a $(INSTALL_ROOT)/lib/
	install -m 644 $(PUBLIC_HEADERS) $(INSTALL_ROOT)/include/zerolag/
	$(INSTALL_SUBST) -e 's|@DEFINES@|$(INSTALL_DEFINES:%=-D%)|' -e 's|@LIBS@|$(PORT_LIBS)|' \
		pkg/zerolag.pc.in > $(INSTALL_ROOT)/lib/pkgconfig/zerolag.pc
	$(INSTALL_SUBST) -e 's|@DEFINES@|$(INSTALL_DEFINES)|' \
		-e 's|@LIBS@|$(subst $(eval) ,;,$(PORT_LIBS:-l%=%))|' \
		pkg/zerolagConfig.cmake.in > $(INSTALL_ROOT)/lib/cmake/zerolag/zerolagConfig.cmake
	$(INSTALL_SUBST) pkg/zerolagConfigVersion.cmake.in \
		> $(INSTALL_ROOT)/lib/cmake/zerolag/zerolagConfigVersion.cmake

# One a line: what install copies to include/zerolag/.
public-headers:
	@printf '%s\n' $(PUBLIC_HEADERS)

# zerolag as a project consumes it, on the host: install, pkg-config and
# CMake consumers, headers alone in C and C++, the capacity mismatch. Its
# own row in make test's table.
check-install:
	@tools/check-install.sh
