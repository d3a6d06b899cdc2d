#!/usr/bin/env python3
"""Checks that the frozen ABI tables (src/capi/abi_offsets_v*.inc) record every member of
PrismApi in include/prism/prism_c_api.h, in declaration order, with offsets that step by one
pointer (8 bytes on LP64), and that each version's recorded size matches its members.

Usage: check_abi_table.py HEADER INC [INC...]   (the .inc files in version order)
"""
import re
import sys

POINTER_BYTES = 8


def header_members(path):
    text = open(path).read()
    start = text.index("typedef struct PrismApi {")
    end = text.index("} PrismApi;", start)
    body = re.sub(r"/\*.*?\*/", "", text[start:end], flags=re.S)
    return re.findall(r"\(\s*\*\s*(\w+)\s*\)\s*\(", body)


def recorded(paths):
    members, sizes = [], []
    for path in paths:
        text = re.sub(r"//[^\n]*", "", open(path).read())
        members += [(name, int(offset), path) for name, offset in
                    re.findall(r"PRISM_ABI_OFFSET\(\s*(\w+)\s*,\s*(\d+)\s*\)", text)]
        sizes += [(int(version), int(size), path) for version, size in
                  re.findall(r"PRISM_ABI_SIZE\(\s*(\d+)\s*,\s*(\d+)\s*\)", text)]
    return members, sizes


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    declared = header_members(sys.argv[1])
    members, sizes = recorded(sys.argv[2:])
    errors = []
    names = [name for name, _, _ in members]
    missing = [name for name in declared if name not in names]
    extra = [name for name in names if name not in declared]
    if missing:
        errors.append("members not recorded in any abi_offsets_v*.inc: " + ", ".join(missing))
    if extra:
        errors.append("recorded members the header lacks: " + ", ".join(extra))
    if not missing and not extra and names != declared:
        errors.append("recorded order differs from the header's declaration order")
    for index, (name, offset, path) in enumerate(members):
        if offset != index * POINTER_BYTES:
            errors.append("%s: %s recorded at offset %d, expected %d"
                          % (path, name, offset, index * POINTER_BYTES))
    if len(sizes) != len(sys.argv) - 2:
        errors.append("each abi_offsets_v*.inc needs exactly one PRISM_ABI_SIZE")
    for version, size, path in sizes:
        if size % POINTER_BYTES or size // POINTER_BYTES > len(members):
            errors.append("%s: size %d of version %d does not match its members"
                          % (path, size, version))
    if sizes and sizes[-1][1] != len(declared) * POINTER_BYTES:
        errors.append("newest recorded size %d != %d bytes of the header's %d members"
                      % (sizes[-1][1], len(declared) * POINTER_BYTES, len(declared)))
    if errors:
        sys.exit("\n".join(errors))
    print("PrismApi: %d members, all recorded in order" % len(declared))


if __name__ == "__main__":
    main()
