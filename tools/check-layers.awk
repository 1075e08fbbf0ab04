# check-layers.awk - reads "rank layer path" lines (every file of core/ and
# platform/, tools/check-core.sh makes them), then each file's
# #include "..." lines, and prints one line per fault:
#   - a file that includes a header of a higher layer (a larger rank);
#   - a file that includes a header that is not in core/ or platform/
#     (zl_user_config.h, the user's configuration, excepted);
#   - an include loop between files (a.h includes b.h includes a.h), or
#     between modules: zl_x.c and zl_x.h are one module, with any
#     zl_x_<part> file beside them (zl_snapshot_read.c, zl_schema_wire.h),
#     so zl_packet.c including zl_protocol.h, which includes zl_packet.h,
#     is a loop.
# Prints nothing when all is well; "files N" at the end either way.

function module_of(name,    base, p) {
    base = name
    sub(/\.[ch]$/, "", base)
    # The longest zl_x with a header zl_x.h of which base is zl_x_<part>.
    p = base
    while (match(p, /_[^_]*$/)) {
        p = substr(p, 1, RSTART - 1)
        if ((p ".h") in path_of)
            return p
    }
    return base
}

# Depth-first search from node u of graph `kind` (edges edge[kind, u, i]);
# state: 1 on the current path, 2 done. Every edge back to a node on the
# path closes a loop, printed as the path around it.
function visit(kind, u,    i, v, k, loop) {
    state[kind, u] = 1
    stack[++depth] = u
    for (i = 1; i <= edges[kind, u]; i++) {
        v = edge[kind, u, i]
        if (state[kind, v] == 1) {
            loop = v
            for (k = depth; k >= 1 && stack[k] != v; k--)
                loop = stack[k] " -> " loop
            print "check-core: include loop between " kind "s: " v " -> " loop
        } else if (state[kind, v] == 0) {
            visit(kind, v)
        }
    }
    depth--
    state[kind, u] = 2
}

function add_edge(kind, u, v) {
    if (u == v || (kind, u, v) in seen)
        return
    seen[kind, u, v] = 1
    edge[kind, u, ++edges[kind, u]] = v
    nodes[kind, u] = 1
}

FNR == NR {
    rank[$3] = $1
    layer[$3] = $2
    name = $3
    sub(/.*\//, "", name)
    path_of[name] = $3
    files[++count] = $3
    next
}

END {
    for (f = 1; f <= count; f++) {
        path = files[f]
        name = path
        sub(/.*\//, "", name)
        while ((getline line < path) > 0) {
            if (line !~ /^[ \t]*#[ \t]*include[ \t]*"/)
                continue
            inc = line
            sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc)
            sub(/".*/, "", inc)
            if (inc == "zl_user_config.h")
                continue
            if (!(inc in path_of)) {
                print "check-core: " path " includes " inc ", which is in neither core/ nor platform/"
                continue
            }
            to = path_of[inc]
            if (rank[to] > rank[path])
                print "check-core: " path " (" layer[path] ") includes " inc " of a higher layer (" layer[to] ")"
            add_edge("file", name, inc)
            add_edge("module", module_of(name), module_of(inc))
        }
        close(path)
    }
    for (f = 1; f <= count; f++) {
        name = files[f]
        sub(/.*\//, "", name)
        if (state["file", name] == 0)
            visit("file", name)
        m = module_of(name)
        if (state["module", m] == 0)
            visit("module", m)
    }
    print "files " count
}
