"""Writes out every SPIR-V module that the installed dpnp and dpctl wheels carry (`cargo xtask
sycl --sweep`).

Usage: python dump_modules.py OUT

The SYCL runtime writes each device image it registers to the current folder when
`SYCL_DUMP_IMAGES=1`, already decompressed; it registers a library's images when the library is
loaded. So this imports every extension module of dpctl and dpnp in a child process (which also
loads what they link: oneMKL's SYCL libraries, whose images are kept apart) inside a scratch
folder, then files each image under OUT by the library that holds its bytes:
`OUT/<package>/<library path>/<sha256 prefix>.spv` (duplicates once), images found in no
dpnp/dpctl library under `OUT/other/`.

The runtime does not dump every image: a library whose image holds only kernels already
registered by another (the SYCL headers' own `handler::fill` kernels, one in each of several
libraries) is skipped. So each SPIR-V header in a dpnp/dpctl library file that no dumped image
starts at is also carved out of the file (the instructions up to the last OpFunctionEnd before
the next header or a zero word; on the dumped images this gives their exact length). Images
compressed in the file would be found only by the dump. `OUT/index.tsv` lists every module
(path, library, bytes, source: dump or carved).
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

MAGIC = b"\x03\x02\x23\x07"
KEY = 512  # bytes of an image's start used to look it up in the libraries


def extension_modules():
    import dpctl
    import dpnp

    mods, libs = [], []
    for pkg in (dpctl, dpnp):
        base = os.path.dirname(pkg.__file__)
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                path = os.path.join(dirpath, f)
                if ".so" not in f or os.path.islink(path):
                    continue
                libs.append(path)
                if f.endswith(".so") and ".cpython-" in f:
                    rel = os.path.relpath(path, os.path.dirname(base))
                    mods.append(rel.split(".")[0].replace(os.sep, "."))
    return sorted(mods), sorted(libs), os.path.dirname(os.path.dirname(dpctl.__file__))


def dump(mods, scratch):
    code = "import importlib, sys\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\n"
    env = dict(os.environ, SYCL_DUMP_IMAGES="1")
    subprocess.run([sys.executable, "-c", code, *mods], cwd=scratch, env=env, check=True)
    return sorted(os.listdir(scratch))


def carve(data, pos):
    """Length of the SPIR-V module at `pos`, or None."""
    i, end, n = pos + 20, None, len(data)
    while i + 4 <= n and data[i:i + 4] != MAGIC:
        word = int.from_bytes(data[i:i + 4], "little")
        count, op = word >> 16, word & 0xFFFF
        if count == 0 or i + 4 * count > n:
            break
        i += 4 * count
        if op == 56:  # OpFunctionEnd
            end = i
    return end - pos if end else None


def is_header(data, pos):
    version = int.from_bytes(data[pos + 4:pos + 8], "little")
    schema = int.from_bytes(data[pos + 16:pos + 20], "little")
    return 0x10000 <= version <= 0x10600 and schema == 0


def main():
    out = os.path.abspath(sys.argv[1])
    mods, libs, site = extension_modules()
    # Where each library's SPIR-V headers start, indexed by the bytes that follow.
    index, headers = {}, {}
    blobs = {}
    for lib in libs:
        data = open(lib, "rb").read()
        blobs[lib] = data
        pos, n = data.find(MAGIC), 0
        while pos >= 0:
            index.setdefault(data[pos:pos + KEY], []).append((lib, pos))
            n += is_header(data, pos)
            pos = data.find(MAGIC, pos + 4)
        if n:
            headers[lib] = n
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    per_lib, rows, seen = {}, [], set()
    images = 0
    covered = set()  # (library, offset) of every dumped image found in a library
    with tempfile.TemporaryDirectory(prefix="zekit-sycl-dump-") as scratch:
        for name in dump(mods, scratch):
            img = open(os.path.join(scratch, name), "rb").read()
            if not img.startswith(MAGIC):
                print(f"dump_modules: {name} is not SPIR-V (starts {img[:4].hex()}); kept under other/", file=sys.stderr)
            images += 1
            digest = hashlib.sha256(img).hexdigest()
            found = [(lib, pos) for lib, pos in index.get(img[:KEY], []) if blobs[lib][pos:pos + len(img)] == img]
            covered.update(found)
            owner = found[0][0] if found else None
            rel_lib = os.path.relpath(owner, site) if owner else "other"
            per_lib[rel_lib] = per_lib.get(rel_lib, 0) + 1
            if digest in seen:
                continue
            seen.add(digest)
            folder = os.path.join(out, rel_lib if owner else "other")
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, digest[:16] + ".spv")
            with open(path, "wb") as f:
                f.write(img)
            rows.append((os.path.relpath(path, out), rel_lib, len(img), "dump"))
    carved, failed = 0, []
    for key, places in sorted(index.items(), key=lambda kv: kv[1]):
        for lib, pos in places:
            data = blobs[lib]
            if (lib, pos) in covered or not is_header(data, pos):
                continue
            size = carve(data, pos)
            if size is None:
                failed.append(f"{os.path.relpath(lib, site)}@{pos}")
                continue
            img = data[pos:pos + size]
            digest = hashlib.sha256(img).hexdigest()
            rel_lib = os.path.relpath(lib, site)
            per_lib[rel_lib] = per_lib.get(rel_lib, 0) + 1
            if digest in seen:
                continue
            seen.add(digest)
            carved += 1
            folder = os.path.join(out, rel_lib)
            os.makedirs(folder, exist_ok=True)
            path = os.path.join(folder, digest[:16] + ".spv")
            with open(path, "wb") as f:
                f.write(img)
            rows.append((os.path.relpath(path, out), rel_lib, size, "carved"))
    if failed:
        print(f"dump_modules: {len(failed)} SPIR-V headers could not be carved: {failed[:10]}", file=sys.stderr)
    rows.sort()
    with open(os.path.join(out, "index.tsv"), "w") as f:
        f.write("path\tlibrary\tbytes\tsource\n")
        for r in rows:
            f.write("\t".join(map(str, r)) + "\n")
    ours = [r for r in rows if r[1] != "other"]
    print(f"dump_modules: {len(mods)} extension modules imported, {images} images dumped, "
          f"{len(rows)} distinct ({len(ours)} from dpnp/dpctl, {carved} of them carved from the files, "
          f"{len(rows) - len(ours)} other) in {out}")
    for lib, n in sorted(headers.items()):
        rel = os.path.relpath(lib, site)
        print(f"  {per_lib.get(rel, 0):6d} images dumped or carved, {n:6d} SPIR-V headers in the file: {rel}")
    print(f"  {per_lib.get('other', 0):6d} images dumped from no dpnp/dpctl library (oneMKL, the runtime)")


if __name__ == "__main__":
    main()
