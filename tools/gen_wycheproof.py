#!/usr/bin/env python3
# gen_wycheproof.py - writes tests/vectors/wycheproof_aead.h, Wycheproof's
# ChaCha20-Poly1305 and XChaCha20-Poly1305 vectors as byte arrays for the
# crypto suite (no file system on bare metal). The output is checked in;
# rerun this after updating tests/vectors/wycheproof/*.json.
import json
import os

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
SOURCES = [("wycheproof_chacha20poly1305", "chacha20_poly1305_test.json"),
           ("wycheproof_xchacha20poly1305", "xchacha20_poly1305_test.json")]
FIELDS = ["key", "iv", "aad", "msg", "ct", "tag"]


class Pool:
    """Every distinct byte string once; vectors refer to them by offset."""

    def __init__(self):
        self.data = bytearray()
        self.where = {}

    def add(self, raw):
        if raw not in self.where:
            self.where[raw] = len(self.data)
            self.data += raw
        return self.where[raw]


def vector_row(pool, t):
    raw = {f: bytes.fromhex(t[f]) for f in FIELDS}
    assert t["result"] in ("valid", "invalid"), t["result"]
    assert len(raw["msg"]) == len(raw["ct"]) and len(raw["key"]) == 32
    assert len(raw["tag"]) in (0, 16) and len(raw["iv"]) < 256
    assert len(raw["aad"]) < 65536 and len(raw["msg"]) < 65536
    offsets = ", ".join("%du" % pool.add(raw[f]) for f in FIELDS)
    return "    {%d, %d, %d, %d, %d, %d, %s}," % (
        t["tcId"], t["result"] == "valid", len(raw["iv"]), len(raw["aad"]),
        len(raw["msg"]), len(raw["tag"]), offsets)


def main():
    pool = Pool()
    tables = []
    for name, source in SOURCES:
        with open(os.path.join(ROOT, "tests", "vectors", "wycheproof", source)) as f:
            doc = json.load(f)
        rows = [vector_row(pool, t) for g in doc["testGroups"] for t in g["tests"]]
        assert len(rows) == doc["numberOfTests"]
        tables.append("static const wycheproof_aead %s[%d] = {\n%s\n};\n" %
                      (name, len(rows), "\n".join(rows)))
    # Decimal without spaces: the header stays about a third smaller than hex.
    values = ["%d" % b for b in pool.data]
    lines = ["    " + ",".join(values[i:i + 24]) + "," for i in range(0, len(values), 24)]
    text = """/* wycheproof_aead.h - Project Wycheproof's ChaCha20-Poly1305 and
 * XChaCha20-Poly1305 test vectors as byte arrays, for tests/test_crypto.c only.
 * Apache License 2.0 data: see tests/vectors/wycheproof/ (LICENSE, README.md).
 * Written by tools/gen_wycheproof.py: edit that, not this. */
#ifndef WYCHEPROOF_AEAD_H
#define WYCHEPROOF_AEAD_H

#include <stdint.h>

/* One vector; the byte strings are offsets into wycheproof_pool. msg and
 * ct have msg_len bytes. valid 0 means opening ct + tag must fail. */
typedef struct wycheproof_aead {
    uint16_t id; /* Wycheproof's tcId */
    uint8_t valid;
    uint8_t nonce_len;
    uint16_t aad_len, msg_len;
    uint8_t tag_len;
    uint32_t key, nonce, aad, msg, ct, tag;
} wycheproof_aead;

static const uint8_t wycheproof_pool[%d] = {
%s
};

%s
#endif
""" % (len(pool.data), "\n".join(lines), "\n".join(tables))
    out = os.path.join(ROOT, "tests", "vectors", "wycheproof_aead.h")
    with open(out, "w") as f:
        f.write(text)
    print("wrote %s: %d vectors, %d pool bytes" %
          (out, sum(t.count("\n    {") for t in tables), len(pool.data)))


if __name__ == "__main__":
    main()
