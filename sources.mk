# sources.mk - what the library is built from, read by the Makefile and by
# CMakeLists.txt alike, so both builds compile the same files: one
# assignment a line, NAME := patterns relative to the top folder. A port's
# own files are PORT_SRC in ports/<name>/port.mk (CMake reads that line too).
ZL_CORE_SOURCES := core/*.c
ZL_PLATFORM_SOURCES := platform/*.c
# The one header an application includes; the public headers are it and
# every header it includes (make install copies exactly those).
ZL_UMBRELLA := core/zerolag.h
