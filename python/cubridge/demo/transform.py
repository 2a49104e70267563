"""Step 2: the CUDA C++ transform kernel (NVRTC → LTO-IR) linked with the Python functions' LTO-IR by
nvJitLink with LTO, so each function is inlined into its kernel. examples/link/ uses the same pieces."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .functions import cpp_definition
from .report import CheckFailed, Report, seconds

# C-style parameters: the signature cubridge.load_kernel is given for these kernels.
KERNEL_SIGNATURE = 'void(const float32*, const float32*, float32*, uint64)'
BLOCK = 256


# The kernel's CUDA C++ (transform.cu beside this file, also read by examples/link and the C++ tests).
_KERNEL_FILE = (Path(__file__).resolve().parent / "transform.cu").read_text()


def transform_source(function: str = "f", kernel: str = "transform") -> str:
    """CUDA C++ of `kernel(a, b, out, n)`: out[i] = function(a[i], b[i]), grid-stride over float4s;
    `function` is declared, not defined: the link supplies it. Several of these concatenate into one
    program (each names its function and kernel, then takes the names back)."""
    return (f"#define TRANSFORM_FUNCTION {function}\n#define TRANSFORM_KERNEL {kernel}\n{_KERNEL_FILE}"
            "#undef TRANSFORM_FUNCTION\n#undef TRANSFORM_KERNEL\n")


KERNEL_SOURCE = transform_source()


def kernel_name(function: str) -> str:
    return f"transform_{function}"


def entry_body(ptx: str, name: str = "transform") -> str:
    """The body of kernel `name` in PTX (from `.entry name(` to its closing brace)."""
    start = ptx.index(f".entry {name}(")
    return ptx[start:ptx.index("\n}", start)]


@dataclass
class Linked:
    cubin: bytes
    ptx: str
    kernels: dict  # function name -> kernel name


def link_step(report: Report, cc, compiled) -> Linked:
    import cubridge
    names = [c.name for c in compiled]
    report.step(f"2. NVRTC: CUDA C++ kernels {', '.join(kernel_name(n) for n in names)} to LTO-IR; "
                "nvJitLink: link with the functions (LTO)")
    source = "".join(transform_source(n, kernel_name(n)) for n in names)
    kernels, nvrtc_s = seconds(cubridge.nvrtc_compile, source, "transform.cu", cc, output="ltoir")
    linker = cubridge.Linker(cc)
    linker.add(kernels)
    for c in compiled:
        linker.add(c.ltoir, "ltoir", f"{c.name}.ltoir")
    result, link_s = seconds(linker.link, ptx=True)
    report.line(f"nvJitLink options: {' '.join(linker.options)}; cubin {len(result.cubin)} bytes")
    if result.cubin[:4] != b"\x7fELF":
        raise CheckFailed(f"the linked cubin starts with {result.cubin[:4]!r}, not an ELF header b'\\x7fELF'")
    for name in names:
        body = entry_body(result.ptx, kernel_name(name))
        calls = [line.strip() for line in body.splitlines() if line.strip().startswith("call")]
        if calls:
            raise CheckFailed(f"{name} was not inlined into {kernel_name(name)}: the linked PTX still has "
                              f"{calls[0]!r}")
        report.line(f"{name} inlined into {kernel_name(name)}: no call left in the linked PTX")
    ptxas = cubridge.toolkit_component("ptxas")
    if not ptxas["found"]:  # NVIDIA's compiler-library wheels (cubridge[cu13]) have no ptxas: say so
        report.skip("assembling the linked PTX with ptxas", ptxas["error"])
    else:
        assembled = cubridge.ptxas_check(result.ptx, cc)
        if not assembled:
            raise CheckFailed(f"ptxas rejected the linked PTX for sm_{cc[0]}{cc[1]} (exit code "
                              f"{assembled.exit_code}): {assembled.log.strip()}")
        report.line(f"ptxas assembles the linked PTX for sm_{cc[0]}{cc[1]}")
    params = cubridge.KernelSignature(KERNEL_SIGNATURE).params
    report.line(f"kernel parameters for cubridge.load_kernel: {', '.join(params)}")
    report.time("NVRTC + nvJitLink: kernels to cubin", 1e3 * (nvrtc_s + link_s), "NVRTC, all C++, to cubin",
                reference_cubin_ms(cc, names))
    return Linked(result.cubin, result.ptx, {n: kernel_name(n) for n in names})


def reference_cubin_ms(cc, names) -> float:
    """The peer of compile + link: the same kernels with the functions written in CUDA C++, NVRTC to cubin."""
    import cubridge
    source = "".join(cpp_definition(n) + transform_source(n, kernel_name(n)) for n in names)
    _, took = seconds(cubridge.nvrtc_compile, source, "reference.cu", cc, output="cubin")
    return 1e3 * took
