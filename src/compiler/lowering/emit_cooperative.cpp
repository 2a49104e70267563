// Internal: numba-cuda's cooperative groups in NVVM IR (see emitter.hpp): cuda.cg.this_grid() and
// GridGroup.sync().
//
// numba-cuda calls cudaCGGetIntrinsicHandle / cudaCGSynchronize from libcudadevrt, which needs the
// device runtime linked in (a cubin link step). We emit what CUDA's own cooperative_groups headers
// compile to instead (cooperative_groups/details/driver_abi.h and sync.h, CUDA 12/13): under a
// cooperative launch the driver puts the address of the grid's workspace {u32 size; u32 barrier} in
// the special registers %envreg1 (high half) and %envreg2 (low half); grid.sync() is a block barrier,
// then each block's thread 0 adds 1 to the barrier word (block 0 adds 0x80000000 - (blocks - 1), so
// the top bit flips when the last block arrives) with release semantics and spins with acquire loads
// until that bit flips, then a block barrier. The PTX is plain text that ptxas and the driver JIT take
// without a link step. atom.add.release.gpu / ld.acquire.gpu need sm_70, below every architecture
// this toolkit's libNVVM targets. A null workspace (a launch that was not cooperative) traps instead
// of hanging.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::this_grid() {
  m_.cooperative = true;
  std::string hi = ins("call i32 asm \"mov.u32 $0, %envreg1;\", \"=r\"()");
  std::string lo = ins("call i32 asm \"mov.u32 $0, %envreg2;\", \"=r\"()");
  std::string hi64 = ins("zext i32 " + hi + " to i64");
  std::string lo64 = ins("zext i32 " + lo + " to i64");
  std::string shifted = ins("shl i64 " + hi64 + ", 32");
  return {ins("or i64 " + shifted + ", " + lo64), Type::grid_group()};
}

Value FunctionEmitter::grid_sync(const Expr& e) {
  m_.cooperative = true;
  Value group = expr(*e.kids[0]->kids[0]);
  line("call void " + m_.grid_sync_function() + "(i64 " + group.v + ")");
  return {"0", Type::integer(32, true)};  // cudaSuccess, as numba-cuda's sync() returns
}

std::string ModuleEmitter::grid_sync_function() {
  const std::string name = "@__cb_grid_sync";
  if (!helpers.insert(name).second) return name;
  declare("declare void @llvm.nvvm.barrier0() nounwind");
  declare("declare void @llvm.trap() noreturn nounwind");
  std::string h = "define internal void " + name + "(i64 %ws) noinline {\nentry:\n"
                  "  %invalid = icmp eq i64 %ws, 0\n  br i1 %invalid, label %not_cooperative, label %arrive\n"
                  "not_cooperative:\n  call void @llvm.trap()\n  unreachable\narrive:\n"
                  "  call void @llvm.nvvm.barrier0()\n";
  auto sreg_sum = [&](const std::string& reg, const char* op) {
    std::string prev;
    for (const char* axis : {"x", "y", "z"}) {
      std::string fn = "@llvm.nvvm.read.ptx.sreg." + reg + "." + axis;
      declare("declare i32 " + fn + "() nounwind readnone");
      std::string v = "%" + reg + axis;
      h += "  " + v + " = call i32 " + fn + "()\n";
      if (!prev.empty()) {
        h += "  " + v + ".acc = " + op + " i32 " + prev + ", " + v + "\n";
        prev = v + ".acc";
      } else {
        prev = v;
      }
    }
    return prev;
  };
  std::string tid_sum = sreg_sum("tid", "add");
  h += "  %block_master = icmp eq i32 " + tid_sum + ", 0\n  br i1 %block_master, label %master, label %leave\n"
       "master:\n";
  std::string ctaid_sum = sreg_sum("ctaid", "add");
  std::string blocks = sreg_sum("nctaid", "mul");
  h += "  %grid_master = icmp eq i32 " + ctaid_sum + ", 0\n"
       "  %others = sub i32 " + blocks + ", 1\n"
       "  %master_add = sub i32 -2147483648, %others\n"
       "  %add = select i1 %grid_master, i32 %master_add, i32 1\n"
       "  %barrier = add i64 %ws, 4\n"
       "  %old = call i32 asm sideeffect \"atom.add.release.gpu.u32 $0,[$1],$2;\", \"=r,l,r,~{memory}\"(i64 %barrier, i32 %add)\n"
       "  br label %wait\nwait:\n"
       "  %now = call i32 asm sideeffect \"ld.acquire.gpu.u32 $0,[$1];\", \"=r,l,~{memory}\"(i64 %barrier)\n"
       "  %changed = xor i32 %old, %now\n  %flip = and i32 %changed, -2147483648\n"
       "  %flipped = icmp ne i32 %flip, 0\n  br i1 %flipped, label %leave, label %wait\n"
       "leave:\n  call void @llvm.nvvm.barrier0()\n  ret void\n}\n\n";
  helper_text += h;
  return name;
}

}  // namespace cubridge::compiler
