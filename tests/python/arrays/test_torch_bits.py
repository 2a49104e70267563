"""Every import refuses a PyTorch tensor whose conjugate or negative bit is set (python/src/py_torch_bits.hpp),
asked here through the tensor's own is_conj() and is_neg() (the path of a cubridge built without PyTorch):
a stand-in `torch` module whose Tensor exports a zero-size CAI, in a fresh interpreter (the answer to "is torch
imported" is kept for the process). On a GPU, tests/python/arrays/test_arrays_import_gpu.py refuses real
PyTorch views through every import."""
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import sys, types
    torch = types.ModuleType("torch")
    torch.__version__ = "0.0.0+standin"

    class Tensor:
        def __init__(self, conj=False, neg=False):
            self.conj, self.neg, self.asked = conj, neg, []
        def is_conj(self):
            self.asked.append("is_conj")
            return self.conj
        def is_neg(self):
            self.asked.append("is_neg")
            return self.neg
        @property
        def __cuda_array_interface__(self):  # zero elements: read without a GPU
            return {"shape": (0,), "typestr": "<f4", "data": (0, False), "version": 3, "strides": None,
                    "stream": None}

    class Parameter(Tensor):
        pass

    torch.Tensor = Tensor
    sys.modules["torch"] = torch
    import cubridge

    def outcome(x):
        try:
            cubridge.as_cuda_array(x)
        except ValueError as e:
            return str(e)
        return "read"

    print(outcome(Tensor()))
    print(outcome(Tensor(conj=True)))
    print(outcome(Parameter(neg=True)))
    plain = Tensor()
    outcome(plain)
    print(",".join(plain.asked))
""")


@pytest.fixture(scope="module")
def lines():
    r = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def test_a_tensor_with_neither_bit_is_read(lines):
    assert lines[0] == "read"


def test_a_conjugated_view_is_refused_naming_resolve_conj(lines):
    assert "a PyTorch tensor with its conjugate bit set" in lines[1] and "pass x.resolve_conj()" in lines[1]


def test_a_negated_view_of_a_subclass_is_refused_naming_resolve_neg(lines):
    assert "a PyTorch tensor with its negative bit set" in lines[2] and "pass x.resolve_neg()" in lines[2]


def test_both_bits_are_asked_of_every_tensor(lines):
    assert lines[3] == "is_conj,is_neg"
