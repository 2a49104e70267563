"""numba-cuda's cache=True in drop-in mode (cubridge._file_cache), rule by rule, compile-only (no GPU).

Each case is a fresh interpreter in drop-in mode (cubridge.install_numba()) importing a module written to a
temporary directory, as numba-cuda's own caching tests do; it prints JSON about the cache files and the
dispatcher's stats. Rules:
 1. cache=True writes <module>.<qualname>-<line>.pyXY.nbi and one <same>.<n>.nbc per signature into the
    __pycache__ beside the source; stats.cache_path names it, cache_misses counts each compile.
 2. A later import (or process) reads them back: cache_hits per signature, no file rewritten.
 3. cache=False, or cache not given, writes nothing (cache_path None) and still counts misses, as numba-cuda.
 4. Outside drop-in mode cache=True is cubridge's own code cache: no file beside the source.
 5. Editing the source file (its stamp) makes every entry a miss; the data files are overwritten in turn. The
    stamp is the source's when the function was made: a process that compiles after the file was edited
    stamps its entries with the text it runs, which a process importing the edited text does not read.
 6. As numba-cuda: a changed global is not noticed by the cache; recompile() compiles afresh and overwrites.
 7. NUMBA_CACHE_DIR puts the files under <dir>/<source dir name>_<sha1 of its path>.
 8. A data file that was edited, or copied over another function's, is a miss, never code.
 9. GPU arrays in the closure are refused with numba-cuda's PicklingError; link= files with its RuntimeError.
10. Closures of one function share its index; each closure value has its own data file and hits its own.
"""
import hashlib
import json
import os
import subprocess
import sys
import textwrap

MODULE = textwrap.dedent('''
    import cubridge
    Z = 1

    @cubridge.jit(cache=True)
    def add(r, x):
        r[0] = x[0] + Z

    @cubridge.jit(cache=False)
    def add_nocache(r, x):
        r[0] = x[0] + Z

    @cubridge.jit
    def add_default(r, x):
        r[0] = x[0] + Z

    @cubridge.jit(cache=True)
    def other(r, x):
        r[0] = x[0] * 3

    def make_closure(v):
        @cubridge.jit(cache=True)
        def closure(r, y):
            r[0] = v + y[0]
        return closure
''')

PRELUDE = textwrap.dedent('''
    import json, os, sys
    import cubridge
    if DROPIN:
        cubridge.install_numba()
    sys.path.insert(0, TMP)
    import fodder
    F32 = "void(float32[:], float32[:])"
    I64 = "void(int64[:], int64[:])"
    def files():
        d = os.path.join(TMP, "__pycache__")
        return sorted(f for f in os.listdir(d) if not f.endswith(".pyc")) if os.path.isdir(d) else []
    def counts(k):
        s = k.stats
        return [s.cache_path, sum(s.cache_hits.values()), sum(s.cache_misses.values())]
''')


def run(tmp_path, body: str, dropin: bool = True, env: dict | None = None):
    mod = tmp_path / "fodder.py"
    if not mod.exists():
        mod.write_text(MODULE)
    code = f"DROPIN = {dropin}\nTMP = {str(tmp_path)!r}\n" + PRELUDE + textwrap.dedent(body)
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    e.update(env or {})
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def base():
    return f"fodder.add-5.py{sys.version_info[0]}{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"


def test_files_are_numba_cudas_index_and_one_data_file_per_signature(tmp_path):
    got = run(tmp_path, '''
        fodder.add.compile(F32)
        one = files()
        fodder.add.compile(I64)
        print(json.dumps([one, files(), counts(fodder.add)]))
    ''')
    b = base()
    assert got[0] == [f"{b}.1.nbc", f"{b}.nbi"]
    assert got[1] == [f"{b}.1.nbc", f"{b}.2.nbc", f"{b}.nbi"]
    assert got[2] == [str(tmp_path / "__pycache__"), 0, 2]


def test_a_later_process_hits_and_rewrites_nothing(tmp_path):
    run(tmp_path, 'fodder.add.compile(F32); fodder.add.compile(I64); print("[]")')
    before = {f: os.stat(tmp_path / "__pycache__" / f).st_mtime_ns for f in os.listdir(tmp_path / "__pycache__")}
    got = run(tmp_path, '''
        fodder.add.compile(F32)
        fodder.add.compile(I64)
        print(json.dumps(counts(fodder.add)))
    ''')
    assert got == [str(tmp_path / "__pycache__"), 2, 0]
    after = {f: os.stat(tmp_path / "__pycache__" / f).st_mtime_ns for f in os.listdir(tmp_path / "__pycache__")}
    assert after == before


def test_cache_false_or_not_given_writes_nothing_and_counts_misses(tmp_path):
    got = run(tmp_path, '''
        fodder.add_nocache.compile(F32)
        fodder.add_default.compile(F32)
        print(json.dumps([files(), counts(fodder.add_nocache), counts(fodder.add_default)]))
    ''')
    assert got == [[], [None, 0, 1], [None, 0, 1]]


def test_outside_drop_in_mode_cache_true_writes_no_file_beside_the_source(tmp_path):
    got = run(tmp_path, 'fodder.add.compile(F32); print(json.dumps([files(), counts(fodder.add)]))', dropin=False)
    assert got == [[], [None, 0, 1]]


def test_an_edited_source_misses_and_reuses_the_data_file_names(tmp_path):
    run(tmp_path, 'fodder.add.compile(F32); print("[]")')
    with open(tmp_path / "fodder.py", "a") as f:
        f.write("\nZ = 10\n")
    got = run(tmp_path, '''
        fodder.add.compile(F32)
        print(json.dumps([files(), counts(fodder.add), "add.f32" in fodder.add.inspect_asm(F32)]))
    ''')
    assert got[0] == [f"{base()}.1.nbc", f"{base()}.nbi"]
    assert got[1][1:] == [0, 1]


def test_entries_carry_the_stamp_of_the_source_the_function_was_made_from(tmp_path):
    run(tmp_path, '''
        with open(os.path.join(TMP, "fodder.py"), "a") as f:
            f.write("\\nZ = 10\\n")  # edited after this process imported it (Z = 1 here)
        fodder.add.compile(I64)
        print("[]")
    ''')
    got = run(tmp_path, 'fodder.add.compile(I64); print(json.dumps(counts(fodder.add)))')
    assert got[1:] == [0, 1]  # the entry of the old text is not this text's


def test_a_changed_global_is_not_noticed_and_recompile_overwrites(tmp_path):
    run(tmp_path, 'fodder.add.compile(I64); print("[]")')
    got = run(tmp_path, '''
        fodder.Z = 10
        cached = fodder.add.compile(I64).ptx
        first = counts(fodder.add)
        fodder.add.recompile()
        fresh = fodder.add.compile(I64).ptx
        print(json.dumps([first, counts(fodder.add), cached == fresh, "10" in fresh]))
    ''')
    assert got[0][1:] == [1, 0]            # the cached code (Z = 1), as numba-cuda
    assert got[1][1:] == [1, 1]            # recompile: one more compile
    assert got[2] is False and got[3] is True
    again = run(tmp_path, 'fodder.Z = 10; p = fodder.add.compile(I64).ptx; print(json.dumps([counts(fodder.add), "10" in p]))')
    assert again[0][1:] == [1, 0] and again[1] is True


def test_numba_cache_dir_holds_the_files_under_numbas_subpath(tmp_path):
    root = tmp_path / "root"
    got = run(tmp_path, 'fodder.add.compile(F32); print(json.dumps([files(), counts(fodder.add)]))',
              env={"NUMBA_CACHE_DIR": str(root)})
    parent = os.path.abspath(str(tmp_path))
    sub = root / (os.path.basename(parent) + "_" + hashlib.sha1(parent.encode()).hexdigest())
    assert got == [[], [str(sub), 0, 1]]
    assert sorted(os.listdir(sub)) == [f"{base()}.1.nbc", f"{base()}.nbi"]


def test_an_edited_or_swapped_data_file_is_a_miss(tmp_path):
    run(tmp_path, 'fodder.add.compile(F32); fodder.other.compile(F32); print("[]")')
    cache = tmp_path / "__pycache__"
    data = cache / f"{base()}.1.nbc"
    other = next(f for f in os.listdir(cache) if f.startswith("fodder.other-") and f.endswith(".1.nbc"))
    raw = bytearray(data.read_bytes())
    raw[-3] ^= 0x01
    data.write_bytes(bytes(raw))
    edited = run(tmp_path, 'fodder.add.compile(F32); print(json.dumps(counts(fodder.add)))')
    assert edited[1:] == [0, 1]
    data.write_bytes((cache / other).read_bytes())
    swapped = run(tmp_path, 'fodder.add.compile(F32); print(json.dumps(counts(fodder.add)))')
    assert swapped[1:] == [0, 1]


REFUSED = textwrap.dedent('''
    import cubridge

    class DeviceArrayLike:  # what a captured numba device array shows the cache: the CUDA Array Interface
        __cuda_array_interface__ = {"shape": (3,), "typestr": "<f4", "data": (0, False), "version": 3}

    def kernel_with(arr):
        @cubridge.jit(cache=True)
        def k(out):
            out[0] = arr[0]
        return k

    def linked(path):
        @cubridge.jit("void()", cache=True, link=[path])
        def f():
            pass
        return f
''')


def test_gpu_arrays_and_linked_files_are_refused_in_numbas_words(tmp_path):
    link = tmp_path / "extra.ptx"
    link.write_text(".version 8.0\n.target sm_75\n.address_size 64\n")
    (tmp_path / "refused.py").write_text(REFUSED)
    got = run(tmp_path, f'''
        import pickle, refused
        out = []
        try:
            refused.kernel_with(refused.DeviceArrayLike()).compile("void(float32[:])")
        except pickle.PicklingError as e:
            out.append(str(e))
        try:
            refused.linked({str(link)!r})
        except RuntimeError as e:
            out.append(str(e))
        print(json.dumps(out))
    ''')
    assert len(got) == 2
    assert "global device arrays. Pass the array(s) as arguments to the kernel instead." in got[0]
    assert got[1].startswith("Cannot pickle CUDACodeLibrary with linking files: kernel 'f' is linked with extra.ptx")


def test_closures_share_the_index_and_each_value_has_its_data_file(tmp_path):
    body = '''
        ks = [fodder.make_closure(v) for v in (3, 5, 7, 9)]
        ptx = [k.compile(I64).ptx for k in ks]
        print(json.dumps([[f for f in files() if "closure" in f], [counts(k)[1:] for k in ks], len(set(ptx))]))
    '''
    first = run(tmp_path, body)
    assert len(first[0]) == 5 and sum(f.endswith(".nbi") for f in first[0]) == 1
    assert first[1] == [[0, 1]] * 4 and first[2] == 4
    again = run(tmp_path, body)
    assert again[0] == first[0] and again[1] == [[1, 0]] * 4 and again[2] == 4
