#!/bin/sh
# check-core.sh NM OBJ... - fails when an object built from core/ needs the
# allocator, stdio, sockets, clocks or software floating point. Core must be
# zero-allocation, sans-IO and fixed point; this reads the objects with nm.
# It also fails when the client (zl_client.o) needs anything of the server's
# side: a client build links no server, lag compensation or snapshot writer.
# Before the objects it reads the sources: core/ is one folder a layer
# (ZL_CORE_LAYERS in sources.mk, lowest first), platform/ sits above them
# all and core/zerolag.h above that. It fails when a file includes a header
# of a higher layer or from outside core/ and platform/, when two files (or
# two modules: zl_x.c, zl_x.h and any zl_x_<part> file) include each other
# in a loop, and when a file of core/ lies outside the layer folders.
nm_tool=$1
shift
forbidden='^_?(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|_sbrk|sbrk|printf|fprintf|vprintf|vfprintf|sprintf|snprintf|vsnprintf|puts|fputs|putchar|fputc|fwrite|fread|fopen|fclose|fflush|perror|socket|bind|connect|send|sendto|recv|recvfrom|select|poll|close|read|write|clock_gettime|gettimeofday|time|clock|QueryPerformanceCounter|GetTickCount|WSAStartup|__aeabi_f.*|__aeabi_d.*|__aeabi_[ui]2[fd]|__aeabi_l2[fd]|__aeabi_ul2[fd]|__.*[sdt]f[23]|__.*[sdt]f[sd]i|__float.*|__fix.*|sin|cos|sqrt|sinf|cosf|sqrtf|atan2|atan2f|floor|floorf)$'
server_side='^_?(zl_server_.*|zl_lagcomp_.*|zl_snapshot_world_.*|zl_snapshot_write|zl_snapshot_message_write|zl_snapshot_client_.*|zl_snapshot_acked|zl_cookie_.*|zl_ratelimit_.*|zl_cmdbuf_.*)$'
# x86 floating-point arithmetic, comparisons and conversions (moves are
# not among them: integer vectors are copied with movaps too).
float_ops='^(v?(add|sub|mul|div|sqrt|min|max|rcp|rsqrt|hadd|hsub|addsub|dp|round)(ss|sd|ps|pd)|v?u?comis[sd]|v?cvt[a-z0-9]*|f[a-z0-9]*)$'
objdump_tool="${nm_tool%nm}objdump"
command -v "$objdump_tool" > /dev/null 2>&1 || objdump_tool=
status=0

# "rank layer path" for every file of core/ and platform/.
layers=$(sed -n 's/^ZL_CORE_LAYERS *:= *//p' sources.mk)
list=$(
    rank=0
    for layer in $layers; do
        rank=$((rank + 1))
        for file in core/"$layer"/*.[ch]; do
            [ -e "$file" ] && echo "$rank $layer $file"
        done
    done
    for file in platform/*.[ch]; do
        echo "$((rank + 1)) platform $file"
    done
    echo "$((rank + 2)) umbrella core/zerolag.h"
)
for file in core/*; do
    if [ -d "$file" ]; then
        case " $layers " in
        *" ${file#core/} "*) ;;
        *) echo "check-core: $file/ is not a layer of ZL_CORE_LAYERS (sources.mk)"; status=1 ;;
        esac
    elif [ "$file" != core/zerolag.h ]; then
        echo "check-core: $file: only zerolag.h lies in core/ itself, the rest in a layer folder"
        status=1
    fi
done
faults=$(echo "$list" | awk -f tools/check-layers.awk - )
checked=$(echo "$faults" | sed -n 's/^files //p')
faults=$(echo "$faults" | grep -v '^files ')
if [ -n "$faults" ]; then
    echo "$faults"
    status=1
fi

for obj in "$@"; do
    bad=$("$nm_tool" -u "$obj" | awk '{print $NF}' | grep -E "$forbidden")
    if [ -n "$bad" ]; then
        echo "check-core: $obj references forbidden symbols:" $bad
        status=1
    fi
    case $obj in
    */zl_client.o)
        bad=$("$nm_tool" -u "$obj" | awk '{print $NF}' | grep -E "$server_side")
        if [ -n "$bad" ]; then
            echo "check-core: the client references server-side symbols:" $bad
            status=1
        fi
        ;;
    esac
    # Code built for x86-64 may ask for the vector registers by attribute
    # (ChaCha20's integer lanes), which -mgeneral-regs-only cannot then
    # police: no floating-point arithmetic or conversion may appear in it.
    if [ -n "$objdump_tool" ] && "$objdump_tool" -f "$obj" 2>/dev/null | grep -q 'x86-64'; then
        bad=$("$objdump_tool" -d --no-show-raw-insn "$obj" | awk '/^ *[0-9a-f]+:/ {print $2}' |
            grep -E "$float_ops" | sort -u)
        if [ -n "$bad" ]; then
            echo "check-core: $obj has floating-point instructions:" $bad
            status=1
        fi
    fi
done
[ $status -eq 0 ] && echo "check-core: $checked files of core/ ($(echo $layers | tr ' ' '<')) and platform/, includes only down a layer, no include loop"
[ $status -eq 0 ] && echo "check-core: $# core objects, no allocator, stdio, socket, clock or float symbols, no x86 float instructions; the client none of the server's"
exit $status
