"""PyTorch's torch.distributed (NCCL backend) with one process per GPU of the host, each rank launching
cubridge kernels on its own GPU: a @cubridge.jit kernel following the device PyTorch made current and a PTX
kernel loaded on the rank's device, on PyTorch tensors and on memory cubridge allocated, then NCCL's
all_reduce over every rank's result (on cubridge's memory too, shared through DLPack), checked on the host.
The test spawns the ranks itself with a deadline, so nothing hangs; NVLink multicast stays off
(NCCL_NVLS_ENABLE=0). Skips, saying how many GPUs there are, on a machine with fewer than two."""
import os
import pathlib
import socket
import subprocess
import sys

import pytest

torch = pytest.importorskip("torch")

import cubridge  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.multi_gpu]

ROOT = pathlib.Path(__file__).resolve().parents[3]
PTX_PATH = ROOT / "tests" / "cpp" / "kernel" / "numba_abi_kernels.ptx"
DEADLINE_S = 150

RANK = r"""
import datetime, sys
import numpy as np
import torch
import torch.distributed as dist
rank, world, port, ptx_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
torch.cuda.set_device(rank)
dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                        timeout=datetime.timedelta(seconds=90), device_id=torch.device("cuda", rank))
import cubridge
assert cubridge.device_count() == world, cubridge.device_count()
# PyTorch made this rank's device current; cubridge's current context is that device's primary context.
assert cubridge.current_context().device.id == rank, cubridge.current_context()

@cubridge.jit
def scale_add(a, x, out):
    i = cubridge.grid(1)
    if i < out.size:
        out[i] = a * x[i] + out[i]

n = 1 << 16
dev = torch.device("cuda", rank)
x = torch.arange(n, dtype=torch.float32, device=dev) + rank
out = torch.full((n,), float(rank), dtype=torch.float32, device=dev)
scale_add.forall(n)(2.0, x, out)                    # out = 2x + r = 2i + 3r, on this rank's GPU
add = cubridge.load_kernel(open(ptx_path).read(), "add_f32", "const float32[:], const float32[:], float32[:]",
                           device=rank)
assert add.module.context.device.id == rank
mine = cubridge.device_array(n, np.float32)         # cubridge's memory, on the current device: this rank's
assert mine.device_id == rank and mine.pointer_attributes["device"] == rank
add[(n + 127) // 128, 128](out, x, mine)            # mine = out + x = 3i + 4r
y = torch.from_dlpack(mine)                         # the same memory, as a tensor NCCL reduces in place
assert y.device == dev and y.data_ptr() == mine.ptr
torch.cuda.synchronize(dev)
dist.all_reduce(y)                                  # sum over ranks: 3iW + 2W(W - 1)
torch.cuda.synchronize(dev)
i = np.arange(n, dtype=np.float64)
want = (3 * i * world + 2 * world * (world - 1)).astype(np.float32)
np.testing.assert_array_equal(mine.copy_to_host(), want)
np.testing.assert_array_equal(y.cpu().numpy(), want)
dist.barrier()
dist.destroy_process_group()
print(f"rank {rank}: all_reduce of cubridge kernels' results checked on {dev}", flush=True)
"""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.timeout(DEADLINE_S + 60)
def test_one_rank_per_gpu_with_torch_distributed_nccl():
    world = cubridge.device_count()
    if torch.cuda.device_count() != world:
        pytest.skip(f"PyTorch sees {torch.cuda.device_count()} GPU(s), cubridge {world}")
    port = free_port()
    env = dict(os.environ, NCCL_NVLS_ENABLE="0", PYTHONUNBUFFERED="1")
    ranks = [subprocess.Popen([sys.executable, "-c", RANK, str(r), str(world), str(port), str(PTX_PATH)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for r in range(world)]
    outputs = []
    try:
        for p in ranks:
            outputs.append(p.communicate(timeout=DEADLINE_S)[0])
    except subprocess.TimeoutExpired:
        for p in ranks:
            p.kill()
        outputs = [p.communicate()[0] for p in ranks]
        pytest.fail(f"the torch.distributed ranks did not finish in {DEADLINE_S} s:\n" +
                    "\n".join(f"--- rank {r}:\n{o[-3000:]}" for r, o in enumerate(outputs)))
    for r, (p, out) in enumerate(zip(ranks, outputs)):
        assert p.returncode == 0, f"rank {r} exited with {p.returncode}:\n{out[-4000:]}"
        assert f"rank {r}: all_reduce of cubridge kernels' results checked on cuda:{r}" in out, out[-4000:]


def test_a_custom_op_runs_where_its_tensors_are_on_each_device():
    # The direct call keeps the kernel it loaded per device; tensors of a device other than the current one
    # go through the op's Python implementation, which makes their device current for the launch.
    if torch.cuda.device_count() < 2:
        pytest.skip(f"needs two GPUs; this machine has {torch.cuda.device_count()}")
    import cubridge.torch as ct

    @cubridge.jit("void(const float32[::1], float32, float32[::1])")
    def scaled(x, factor, out):
        i = cubridge.grid(1)
        if i < out.size:
            out[i] = x[i] * factor

    op = ct.custom_op(scaled, out="x", ntasks=lambda x, f: x.numel(), name="cubridge_multi_gpu::scaled")
    for current, where in ((0, 0), (1, 1), (0, 0), (1, 1), (0, 1), (1, 0)):
        with torch.cuda.device(current):
            x = torch.randn(1000, device=f"cuda:{where}")
            out = op(x, 2.5)
            assert out.device == x.device and torch.cuda.current_device() == current
            torch.testing.assert_close(out, x * 2.5)
