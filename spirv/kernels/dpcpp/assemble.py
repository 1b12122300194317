#!/usr/bin/env python3
"""Assembles the hand-written DPC++-style test kernels of this folder: each `NAME.spvasm`
becomes `NAME.spv` (committed: CI has no SPIRV-Tools), through `spirv-as --target-env spv1.4`.

SPIRV-Tools 2023.1 does not know every opcode and capability these tests use, so a kernel may
write a placeholder the assembler knows and ask for it to be renumbered in the binary, with
comment lines:

    ; patch-op FROM TO    every instruction of opcode FROM becomes opcode TO
    ; patch-cap FROM TO   every `OpCapability FROM` becomes `OpCapability TO`
    ; patch-decoration FROM TO   every `OpDecorate %x FROM ...` becomes `OpDecorate %x TO ...`
    ; patch-mode FROM TO  every `OpExecutionMode(Id) %f FROM ...` becomes mode TO
    ; patch-decoration-literal FROM TO LIT   every `OpDecorate %x FROM ops` becomes
                          `OpDecorate %x TO LIT ops` (a literal put before the operands)

Run from anywhere: `python3 spirv/kernels/dpcpp/assemble.py [FOLDER...]` (default: this folder;
`spirv/kernels/filetests` holds the compiler's file tests, assembled the same way).
"""

import pathlib
import struct
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def patches(text, kind):
    out = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == ";" and parts[1] == kind:
            out[int(parts[2])] = int(parts[3])
    return out


def assemble(src):
    text = src.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out.spv"
        subprocess.run(
            ["spirv-as", "--target-env", "spv1.4", str(src), "-o", str(out)], check=True
        )
        data = bytearray(out.read_bytes())
    ops, caps = patches(text, "patch-op"), patches(text, "patch-cap")
    decos, modes = patches(text, "patch-decoration"), patches(text, "patch-mode")
    with_literal = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 5 and parts[:2] == [";", "patch-decoration-literal"]:
            with_literal[int(parts[2])] = (int(parts[3]), int(parts[4]))
    words = list(struct.unpack("<%dI" % (len(data) // 4), data))
    out = words[:5]
    i = 5
    while i < len(words):
        count, op = words[i] >> 16, words[i] & 0xFFFF
        inst = words[i : i + count]
        if op == 17 and inst[1] in caps:
            inst[1] = caps[inst[1]]
        elif op == 71 and inst[2] in decos:
            inst[2] = decos[inst[2]]
        elif op == 71 and inst[2] in with_literal:
            to, lit = with_literal[inst[2]]
            inst = [((count + 1) << 16) | op, inst[1], to, lit] + inst[3:]
        elif op in (16, 331) and inst[2] in modes:
            inst[2] = modes[inst[2]]
        elif op in ops:
            inst[0] = (count << 16) | ops[op]
        out += inst
        i += count
    src.with_suffix(".spv").write_bytes(struct.pack("<%dI" % len(out), *out))


def main():
    folders = [pathlib.Path(a) for a in sys.argv[1:]] or [HERE]
    for folder in folders:
        for src in sorted(folder.glob("*.spvasm")):
            assemble(src)
            print("assembled", src.name, file=sys.stderr)


if __name__ == "__main__":
    main()
