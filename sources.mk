# sources.mk - what the library is built from, read by the Makefile and by
# CMakeLists.txt alike, so both builds compile the same files: one
# assignment a line, NAME := patterns relative to the top folder. A port's
# own files are PORT_SRC in ports/<name>/port.mk (CMake reads that line too).
# core/ is one folder a layer, lowest first: a file includes headers of its
# own layer and of those before it only (make check-core). Each layer is on
# the include path, so an include names the file alone: #include "zl_link.h".
ZL_CORE_LAYERS := base hal crypto sim net sync endpoint
ZL_CORE_SOURCES := core/*/*.c
ZL_PLATFORM_SOURCES := platform/*.c
# The one header an application includes; the public headers are it and
# every header it includes (make install copies exactly those).
ZL_UMBRELLA := core/zerolag.h
