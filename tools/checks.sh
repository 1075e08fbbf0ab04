# checks.sh - sourced by the program checks (tools/*-test.sh): counts each
# check and ends with the "N passed, N failed" line tools/test-all.sh reads.
pass=0
fail=0
# check NAME STATUS [DETAIL]: passes when STATUS (a command's $?) is 0.
check() {
    if [ "$2" -eq 0 ]; then
        pass=$((pass + 1))
        echo "ok    $1${3:+: $3}"
    else
        fail=$((fail + 1))
        echo "FAIL  $1${3:+: $3}"
    fi
}
# Prints the count and exits: 0 only when nothing failed.
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}
