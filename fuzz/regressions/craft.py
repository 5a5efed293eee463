#!/usr/bin/env python3
"""Hand-made checkpoint variants: change single values of a seed's sections.

    craft.py SEED OUT [--list] [SECTION:INDEX:FMT=VALUE ...] [SECTION:len=BYTES ...]

FMT is a struct code (d f64, f f32, Q u64, I u32, H u16, B u8); INDEX counts elements of
that size. `SECTION:len=N` shortens a section's table entry to N bytes. `--list` prints
the table and the first values of the sections named after it.

The output is NOT sealed (header digest and CRCs are stale): feed it to the sealed fuzz
target, which fixes them up, and keep the sealed file with TALUS_FUZZ_WRITE:

    TALUS_FUZZ_WRITE=regressions/x.talus \
        target/x86_64-unknown-linux-gnu/release/checkpoint_sealed OUT
"""
import struct
import sys


def table(b):
    n = struct.unpack_from("<I", b, 20)[0]
    out = {}
    for k in range(n):
        at = 256 + 64 * k
        name = b[at:at + 32].split(b"\0")[0].decode()
        elem, crc, off, ln = struct.unpack_from("<IIQQ", b, at + 32)
        out[name] = (at, elem, off, ln)
    return out


def main():
    seed, out, *ops = sys.argv[1:]
    b = bytearray(open(seed, "rb").read())
    t = table(b)
    if ops and ops[0] == "--list":
        for name, (_, elem, off, ln) in t.items():
            print(f"{name:20} elem {elem} offset {off:6} len {ln}")
        for spec in ops[1:]:
            name, fmt = spec.split(":")
            _, _, off, ln = t[name]
            size = struct.calcsize(fmt)
            print(name, [struct.unpack_from("<" + fmt, b, off + i * size)[0] for i in range(ln // size)][:64])
        return
    for op in ops:
        target, value = op.split("=")
        parts = target.split(":")
        at, _, off, ln = t[parts[0]]
        if parts[1] == "len":
            struct.pack_into("<Q", b, at + 48, int(value))
            continue
        index, fmt = int(parts[1]), parts[2]
        size = struct.calcsize(fmt)
        assert (index + 1) * size <= ln, f"{parts[0]} has {ln} bytes"
        v = float(value) if fmt in "df" else int(value, 0)
        struct.pack_into("<" + fmt, b, off + index * size, v)
    open(out, "wb").write(b)


if __name__ == "__main__":
    main()
