# mapsum.awk - sums a GNU ld link map (-Wl,-Map) by origin and section kind:
# prints "<origin> <text|rodata|data|bss> <bytes>" lines, origin being
# "zerolag" (core/ and the FPS rules), "program" (the rest built here: the
# footprint programs, platform/, the port) or "runtime" (C library, startup
# files). Only input sections the link kept are counted.
function hex(s,   i, n) {
    n = 0
    s = tolower(substr(s, 3))
    for (i = 1; i <= length(s); i++)
        n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
    return n
}
/^Linker script and memory map/ { kept = 1; next }
!kept { next }
# A long section name sits alone on its line; its address, size and file follow.
/^ \.(text|rodata|data|bss)[^ ]* *$/ { pending = $1; next }
{
    if (pending != "" && NF == 3 && $1 ~ /^0x/) { sec = pending; size = $2; file = $3 }
    else if (NF == 4 && $1 ~ /^(\.(text|rodata|data|bss)|COMMON)/ && $2 ~ /^0x/) {
        sec = $1; size = $3; file = $4
    }
    else { pending = ""; next }
    pending = ""
    kind = sec ~ /^\.text/ ? "text" : sec ~ /^\.rodata/ ? "rodata" : sec ~ /^\.data/ ? "data" : "bss"
    origin = file ~ /obj\/(core|examples\/fps)\// ? "zerolag" : file ~ /obj\// ? "program" : "runtime"
    sum[origin " " kind] += hex(size)
}
END { for (k in sum) print k, sum[k] }
