#!/usr/bin/env python3
"""Proves that no AVX instruction sits outside the AVX2 and AVX-512 kernel units of a Prism library.

Disassembles each given shared library with objdump and lists every function that uses a YMM or
ZMM register or a VEX/EVEX-encoded instruction (all of AVX's mnemonics start with 'v') whose
demangled name does not belong to the AVX2 unit (namespace prism::mlas::avx2, or Eigen renamed to
PrismEigenAvx2 there) or the AVX-512 one (prism::mlas::avx512, PrismEigenAvx512). Such a function
would run AVX instructions on a CPU without AVX: the baseline build's promise that it runs on any
x86-64 would break. Exit status 1 lists them.

usage: check_isa_leaks.py LIBRARY...
"""
import re
import subprocess
import sys

ALLOWED = ("prism::mlas::avx2::", "PrismEigenAvx2", "prism::mlas::avx512::", "PrismEigenAvx512")
FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
# "  1234:\tvmovups %ymm0,(%rax)": the mnemonic after the address and tab.
INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+(\S+)\s*(.*)$")


def avx_instruction(mnemonic, operands):
    if "%ymm" in operands or "%zmm" in operands:
        return True
    # VEX-encoded: vmovss, vfmadd231ps, vzeroupper, vpbroadcastd, ... (no baseline mnemonic
    # starts with 'v': verr/verw are privileged-only and never emitted by compilers).
    return mnemonic.startswith("v") and mnemonic not in ("verr", "verw")


def leaks(library):
    listing = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", library],
                             check=True, capture_output=True, text=True).stdout
    found = {}
    function = None
    for line in listing.splitlines():
        header = FUNCTION.match(line)
        if header:
            function = header.group(1)
            continue
        instruction = INSTRUCTION.match(line)
        if not instruction or function is None:
            continue
        mnemonic, operands = instruction.group(1), instruction.group(2)
        if avx_instruction(mnemonic, operands) and not any(a in function for a in ALLOWED):
            found.setdefault(function, f"{mnemonic} {operands}".strip())
    return found


def main(libraries):
    if not libraries:
        print(__doc__)
        return 2
    status = 0
    for library in libraries:
        found = leaks(library)
        if found:
            status = 1
            print(f"{library}: {len(found)} functions outside the AVX2 and AVX-512 units use AVX:")
            for function, example in sorted(found.items())[:50]:
                print(f"  {function}: {example}")
        else:
            print(f"{library}: no AVX instruction outside the AVX2 and AVX-512 units")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
