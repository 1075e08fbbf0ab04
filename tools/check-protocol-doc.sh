#!/bin/sh
# check-protocol-doc.sh [PROGRAM [DOCUMENT]] - checks the examples of
# docs/PROTOCOL.md against the code. PROGRAM (by default it is rebuilt with
# `make protocol-examples` and taken from build/posix/) prints every example
# as fenced blocks: "```hex example=NAME" (the datagram) and "```text
# fields=NAME" (its reading). Each block must appear in the document exactly
# once, byte for byte, and the document may hold no such block the program
# does not print. Any difference is shown as a diff and fails the check.
# After an intended wire change, UPDATE=1 rewrites the document's blocks
# with what the program prints (then read the diff before committing).
set -eu
doc=${2:-docs/PROTOCOL.md}
if [ $# -ge 1 ]; then
    program=$1
else
    make --no-print-directory -s protocol-examples PORT=posix >&2
    program=build/posix/protocol_examples
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$program" >"$work/program.txt"

# blocks FILE DIR: one file per named block in DIR, called KIND-NAME (the
# closing fence is not part of the block); fails on a name seen twice.
blocks() {
    mkdir -p "$2"
    awk -v dir="$2" '
        inside && /^```$/ { inside = 0; close(file); next }
        inside { print > file; next }
        /^```(hex example|text fields)=[A-Za-z0-9_-]+$/ {
            split($2, part, "=")
            name = part[1] "-" part[2]
            if (name in seen) { print "twice: " name > "/dev/stderr"; bad = 1 }
            seen[name] = 1
            file = dir "/" name
            printf "" > file
            inside = 1
        }
        END { exit bad }' "$1"
}
status=0
blocks "$work/program.txt" "$work/code" || status=1
if [ "${UPDATE:-0}" = 1 ]; then
    awk -v dir="$work/code" '
        skipping && /^```$/ { skipping = 0; print; next }
        skipping { next }
        /^```(hex example|text fields)=[A-Za-z0-9_-]+$/ {
            print
            split($2, part, "=")
            file = dir "/" part[1] "-" part[2]
            while ((getline line < file) > 0) print line
            close(file)
            skipping = 1
            next
        }
        { print }' "$doc" >"$work/updated"
    cp "$work/updated" "$doc"
fi
blocks "$doc" "$work/doc" || status=1
checked=0
differ=0
for f in "$work"/code/*; do
    name=$(basename "$f")
    checked=$((checked + 1))
    if [ ! -f "$work/doc/$name" ]; then
        echo "$doc lacks the block $name"
        differ=$((differ + 1))
    elif ! diff -u --label "$doc" --label "the code" "$work/doc/$name" "$f"; then
        echo "block $name differs"
        differ=$((differ + 1))
    fi
done
for f in "$work"/doc/*; do
    [ -e "$f" ] || continue
    name=$(basename "$f")
    if [ ! -f "$work/code/$name" ]; then
        echo "$doc holds the block $name, which the code no longer prints"
        differ=$((differ + 1))
    fi
done
[ "$differ" -eq 0 ] || status=1
echo "protocol examples: $checked blocks of $doc checked against the code, $differ differ"
exit "$status"
