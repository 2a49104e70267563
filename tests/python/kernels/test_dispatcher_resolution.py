"""A kernel declared with several signatures (``cubridge.jit([sig1, sig2])``): the launch's arguments choose one
as numba-cuda's dispatcher does (cubridge._resolution; rules in its docstring), compile-only: which signature
is chosen, numba's "No matching definition" and "Ambiguous overloading" errors, and the choice cached."""
import numpy as np
import pytest

import cubridge
from cubridge._resolution import Resolver, conversion


def add_kernel(r, x, y):
    r[0] = x + y


def sigs(*spellings):
    return [cubridge.Signature.parse(s) for s in spellings]


R64 = np.zeros(1, np.float64)


def ARGS(*spellings):
    return [cubridge.Type.parse(s) for s in spellings]


@pytest.mark.parametrize("actual, formal, kind", [
    ("int64", "int64", 0), ("int32", "int64", 1), ("float32", "float64", 1), ("int32", "float64", 2),
    ("int64", "float64", 2), ("float64", "float32", 3), ("float64", "int64", 3), ("complex128", "float64", 4),
    ("float64[::1]", "float64[::1]", 0), ("float64[::1]", "float64[:]", 2), ("float64[::1]", "float32[::1]", 4),
    ("float64[::1]", "float64", 4), ("int64", "float64[::1]", 4),
])
def test_conversion_kinds_are_numbas(actual, formal, kind):
    assert conversion(cubridge.Type.parse(actual), cubridge.Type.parse(formal)) == kind


def test_an_exact_match_wins_and_safe_beats_unsafe():
    declared = sigs("void(float64[::1], float32, float32)", "void(float64[::1], float64, float64)")
    choose = Resolver(add_kernel, declared)
    assert choose((R64, np.float32(1), np.float32(2 ** -25))) is declared[0]
    # int64 -> float64 is safe, int64 -> float32 unsafe: numba's test_explicit_signatures_same_type_class
    assert choose((R64, 1, 2 ** -25)) is declared[1]


def test_promotion_beats_a_safe_conversion():
    declared = sigs("void(float64[::1], float64, float64)", "void(float64[::1], int64, int64)")
    assert Resolver(add_kernel, declared)((R64, np.int32(1), np.int32(2))) is declared[1]


def test_no_signature_converting_every_argument_is_numbas_no_matching_definition():
    choose = Resolver(add_kernel, sigs("void(int64[::1], int64, int64)", "void(float64[::1], float64, float64)"))
    r = np.zeros(1, np.complex128)
    with pytest.raises(TypeError, match=r"No matching definition for argument type\(s\) array\(complex128, 1d, C\), "
                                        r"complex128, complex128: kernel 'add_kernel' was declared with "
                                        r"void\(int64\[::1\], int64, int64\), void\(float64\[::1\]"):
        choose((r, 1j, 1j))
    with pytest.raises(TypeError, match="No matching definition for argument type"):
        choose((R64, 1.0))  # too few arguments


def test_a_tie_between_the_best_is_ambiguous_naming_the_tied_signatures_only():
    choose = Resolver(add_kernel, sigs("void(float64[::1], float32, float64)", "void(float64[::1], float64, float32)",
                                       "void(float64[::1], int64, int64)"))
    with pytest.raises(TypeError, match=r"Ambiguous overloading for <function add_kernel [^>]*> ") as raised:
        choose((R64, 1.0, 2.0))
    message = str(raised.value)
    assert "int64" not in message  # the worse signature is not named
    assert "float32" in message and "exact types of one signature" in message


def test_the_ambiguity_is_spelled_as_numba_spells_it_when_numba_is_imported():
    pytest.importorskip("numba.core.types")
    choose = Resolver(add_kernel, sigs("void(float64[::1], float32, float64)", "void(float64[::1], float64, float32)",
                                       "void(float64[::1], int64, int64)"))
    with pytest.raises(TypeError) as raised:
        choose((R64, 1.0, 2.0))
    # numba-cuda's test_explicit_signatures_ambiguous_resolution checks this text
    assert raised.match(r"Ambiguous overloading for <function add_kernel [^>]*> "
                        r"\(Array\(float64, 1, 'C', False, aligned=True\), float64, float64\):\n"
                        r"\(Array\(float64, 1, 'C', False, aligned=True\), float32, float64\) -> none\n"
                        r"\(Array\(float64, 1, 'C', False, aligned=True\), float64, float32\) -> none")


def test_the_choice_is_cached_per_argument_types():
    choose = Resolver(add_kernel, sigs("void(float64[::1], float32, float32)", "void(float64[::1], float64, float64)"))
    first = choose((R64, 1, 2.0))
    assert choose((R64, 3, 4.0)) is first and len(choose._chosen) == 1
    choose((R64, np.float32(1), np.float32(2)))
    assert len(choose._chosen) == 2


def test_the_dispatcher_resolves_its_declared_signatures():
    d = cubridge.jit(["(int64[::1], int64, int64)", "(float64[::1], float64, float64)"])(add_kernel)
    assert len(d.overloads) == 2
    assert d._signature_for((np.zeros(1, np.int64), 1, 2)).args == ARGS("int64[::1]", "int64", "int64")
    assert d._signature_for((R64, 1.5, 2.5)).args == ARGS("float64[::1]", "float64", "float64")
    with pytest.raises(TypeError, match="No matching definition"):
        d[128, 1](np.zeros(1, np.complex128), 1j, 1j)  # refused before any device is touched
    assert len(d.overloads) == 2


def test_one_declared_signature_is_launched_without_resolution():
    d = cubridge.jit("(int64[::1], int64, int64)")(add_kernel)
    assert d._resolver is None
    # the launch then converts the arguments or refuses them by name
    assert d._signature_for((R64, 1.5, 2.5)).args == ARGS("int64[::1]", "int64", "int64")


def test_a_signature_declared_twice_is_one_candidate_not_an_ambiguity():
    d = cubridge.jit(["(int64[::1], int64, int64)", "(int64[::1], int64, int64)", "(float64[::1], float64, float64)"])(
        add_kernel)
    assert d._signature_for((np.zeros(1, np.int64), 1, 2)).args == ARGS("int64[::1]", "int64", "int64")
    assert len(d.overloads) == 2


def test_the_choice_can_be_asked_by_argument_types():
    declared = sigs("void(float64[::1], float32, float32)", "void(float64[::1], float64, float64)")
    choose = Resolver(add_kernel, declared)
    assert choose.for_types(tuple(ARGS("float64[::1]", "int64", "float64"))) is declared[1]
    assert choose((R64, 1, 2.0)) is declared[1] and len(choose._chosen) == 1
