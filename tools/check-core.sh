#!/bin/sh
# check-core.sh NM OBJ... - fails when an object built from core/ needs the
# allocator, stdio, sockets, clocks or software floating point. Core must be
# zero-allocation, sans-IO and fixed point; this reads the objects with nm.
# It also fails when the client (zl_client.o) needs anything of the server's
# side: a client build links no server, lag compensation or snapshot writer.
nm_tool=$1
shift
forbidden='^_?(malloc|calloc|realloc|free|aligned_alloc|posix_memalign|_sbrk|sbrk|printf|fprintf|vprintf|vfprintf|sprintf|snprintf|vsnprintf|puts|fputs|putchar|fputc|fwrite|fread|fopen|fclose|fflush|perror|socket|bind|connect|send|sendto|recv|recvfrom|select|poll|close|read|write|clock_gettime|gettimeofday|time|clock|QueryPerformanceCounter|GetTickCount|WSAStartup|__aeabi_f.*|__aeabi_d.*|__aeabi_[ui]2[fd]|__aeabi_l2[fd]|__aeabi_ul2[fd]|__.*[sdt]f[23]|__.*[sdt]f[sd]i|__float.*|__fix.*|sin|cos|sqrt|sinf|cosf|sqrtf|atan2|atan2f|floor|floorf)$'
server_side='^_?(zl_server_.*|zl_lagcomp_.*|zl_snapshot_world_.*|zl_snapshot_write|zl_snapshot_message_write|zl_snapshot_client_.*|zl_snapshot_acked|zl_cookie_.*|zl_ratelimit_.*|zl_cmdbuf_.*)$'
status=0
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
done
[ $status -eq 0 ] && echo "check-core: $# core objects, no allocator, stdio, socket, clock or float symbols; the client none of the server's"
exit $status
