#!/bin/sh
# check-core.sh NM OBJ... - fails when an object built from core/ needs the
# allocator, stdio, sockets, clocks or software floating point. Core must be
# zero-allocation, sans-IO and fixed point; this reads the objects with nm.
nm_tool=$1
shift
forbidden='^_?(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|_sbrk|sbrk|printf|fprintf|vprintf|vfprintf|sprintf|snprintf|vsnprintf|puts|fputs|putchar|fputc|fwrite|fread|fopen|fclose|fflush|perror|socket|bind|connect|send|sendto|recv|recvfrom|select|poll|close|read|write|clock_gettime|gettimeofday|time|clock|QueryPerformanceCounter|GetTickCount|WSAStartup|__aeabi_f.*|__aeabi_d.*|__aeabi_[ui]2[fd]|__aeabi_l2[fd]|__aeabi_ul2[fd]|__.*[sdt]f[23]|__.*[sdt]f[sd]i|__float.*|__fix.*|sin|cos|sqrt|sinf|cosf|sqrtf|atan2|atan2f|floor|floorf)$'
status=0
for obj in "$@"; do
    bad=$("$nm_tool" -u "$obj" | awk '{print $NF}' | grep -E "$forbidden")
    if [ -n "$bad" ]; then
        echo "check-core: $obj references forbidden symbols:" $bad
        status=1
    fi
done
[ $status -eq 0 ] && echo "check-core: $# core objects, no allocator, stdio, socket, clock or float symbols"
exit $status
