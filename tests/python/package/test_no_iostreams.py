"""The C++ sources use no iostreams. The Python extension links its own libstdc++ (statically), and a stream's
locale facets clashed with another libstdc++ already in the process: an istringstream in the fp8 emitter
crashed numba-cuda's test process on the GPU machine (SIGSEGV in std::codecvt). Text is built with std::string
and parsed with std::from_chars instead."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[3]
STREAMS = re.compile(r"#\s*include\s*<(sstream|iostream|istream|ostream|fstream|strstream)>|std::(i|o)?stringstream\b")


def test_no_iostreams_in_the_library_or_the_extension():
    found = []
    for folder in ("src", "include", "python/src"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".cpp", ".hpp", ".h", ".inc") and path.is_file():
                for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                    if STREAMS.search(line):
                        found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "iostreams in the C++ sources:\n" + "\n".join(found)
