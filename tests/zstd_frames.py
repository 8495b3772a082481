#!/usr/bin/env python3
"""tests/zstd_frames.py [--flags] FILE - a zstd file's frames, one line each: its offset, the length
of its header and its length (RFC 8878: frame header, block headers, checksum; a skippable frame: 8
and its length); with --flags two more columns, 1 where the frame's header has a content size and
where the frame has a checksum (else 0). For tests that damage a chosen frame or cut at a frame
boundary, and that check what a writer put in each frame."""
import sys

flags = sys.argv[1] == '--flags'
d = open(sys.argv[-1], 'rb').read()
pos = 0
while pos < len(d):
    magic = int.from_bytes(d[pos:pos + 4], 'little')
    if magic & 0xFFFFFFF0 == 0x184D2A50:
        n = 8 + int.from_bytes(d[pos + 4:pos + 8], 'little')
        print(pos, 8, n, *((0, 0) if flags else ()))
        pos += n
        continue
    fhd = d[pos + 4]
    single, fcs_flag, dict_flag = (fhd >> 5) & 1, fhd >> 6, fhd & 3
    hdr = 5 + (0 if single else 1) + [0, 1, 2, 4][dict_flag] + ([1 if single else 0, 2, 4, 8][fcs_flag])
    p = pos + hdr
    while True:
        bh = int.from_bytes(d[p:p + 3], 'little')
        p += 3 + (1 if (bh >> 1) & 3 == 1 else bh >> 3)
        if bh & 1:
            break
    if fhd & 4:
        p += 4
    has_fcs = 1 if (fcs_flag or single) else 0
    print(pos, hdr, p - pos, *((has_fcs, (fhd >> 2) & 1) if flags else ()))
    pos = p
