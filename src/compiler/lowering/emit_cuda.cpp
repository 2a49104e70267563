// Internal: CUDA intrinsics in NVVM IR (see emitter.hpp), lowered as numba-cuda lowers them: special
// registers through llvm.nvvm.read.ptx.sreg.*, barriers through llvm.nvvm.barrier0*, warp shuffles and
// votes through NVVM's llvm.nvvm.shfl.sync / llvm.nvvm.vote.sync, integer atomics as atomicrmw/cmpxchg,
// float add through llvm.nvvm.atomic.load.add, float max/min as compare-and-swap loops.
#include <algorithm>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {
const Type kI32 = Type::integer(32, true);
const Type kI64 = Type::integer(64, true);
}  // namespace

Value FunctionEmitter::sreg(const std::string& reg) {
  std::string fn = "@llvm.nvvm.read.ptx.sreg." + reg;
  m_.declare("declare i32 " + fn + "() nounwind readnone");
  return {ins("call i32 " + fn + "()"), kI32};
}

Value FunctionEmitter::cuda_attribute(const Expr& e) {
  const std::string& n = e.target;
  if (n == "laneid" || n == "warpsize") return sreg(n);
  std::size_t dot = n.find('.');
  std::string head = n.substr(0, dot), axis = n.substr(dot + 1);
  std::string reg = head == "threadIdx" ? "tid" : head == "blockIdx" ? "ctaid" : head == "blockDim" ? "ntid" : "nctaid";
  return sreg(reg + "." + axis);
}

Value FunctionEmitter::intrinsic(const Expr& e) {
  const std::string& n = e.target;
  auto arg = [&](std::size_t i) { return expr(*e.kids[i + 1]); };
  auto void_call = [&](const std::string& fn, const std::string& args = "", const std::string& params = "") {
    m_.declare("declare void @" + fn + "(" + params + ") nounwind");
    line("call void @" + fn + "(" + args + ")");
    return Value{"undef", Type::none()};
  };
  if (n == "grid" || n == "gridsize") {
    static const char* axes[] = {"x", "y", "z"};
    std::vector<Value> parts;
    for (std::int64_t k = 0; k < e.shape[0]; ++k) {
      std::string ax = axes[k];
      Value ntid = convert(sreg("ntid." + ax), kI64);
      Value other = convert(sreg((n == "grid" ? "ctaid." : "nctaid.") + ax), kI64);
      std::string prod = ins("mul i64 " + ntid.v + ", " + other.v);
      if (n == "grid") {
        Value tid = convert(sreg("tid." + ax), kI64);
        prod = ins("add i64 " + prod + ", " + tid.v);
      }
      parts.push_back({prod, kI64});
    }
    return parts.size() == 1 ? parts[0] : make_aggregate(e.type, parts);
  }
  if (n == "syncthreads") return void_call("llvm.nvvm.barrier0");
  if (n == "cg.this_grid") return this_grid();
  if (n == "syncthreads_count" || n == "syncthreads_and" || n == "syncthreads_or") {
    std::string fn = n == "syncthreads_count" ? "llvm.nvvm.barrier0.popc" : n == "syncthreads_and" ? "llvm.nvvm.barrier0.and"
                                                                                                : "llvm.nvvm.barrier0.or";
    m_.declare("declare i32 @" + fn + "(i32) nounwind");
    Value p = convert(Value{truth(arg(0)), Type::boolean()}, kI32);
    return {ins("call i32 @" + fn + "(i32 " + p.v + ")"), kI32};
  }
  if (n == "syncwarp") {
    std::string mask = e.kids.size() > 1 ? convert(arg(0), kI32).v : "-1";
    return void_call("llvm.nvvm.bar.warp.sync", "i32 " + mask, "i32");
  }
  if (n == "nanosleep") {  // numba-cuda's inline asm (sm_70 and later)
    Value ns = convert(arg(0), Type::integer(32, false));
    line("call void asm sideeffect \"nanosleep.u32 $0;\", \"r\"(i32 " + ns.v + ")");
    return Value{"undef", Type::none()};
  }
  if (n == "threadfence") return void_call("llvm.nvvm.membar.gl");
  if (n == "threadfence_block") return void_call("llvm.nvvm.membar.cta");
  if (n == "threadfence_system") return void_call("llvm.nvvm.membar.sys");
  if (n == "activemask") return {ins("call i32 asm sideeffect \"activemask.b32 $0;\", \"=r\"()"), e.type};
  if (n == "lanemask_lt") return {sreg("lanemask.lt").v, e.type};
  if (n.starts_with("shfl_")) {
    Value mask = convert(arg(0), kI32);
    Value value = convert(arg(1), e.type);
    Value lane = convert(arg(2), kI32);
    return shuffle(e, mask, value, lane);
  }
  if (n == "match_any_sync" || n == "match_all_sync") {  // numba-cuda's llvm.nvvm.match.{any,all}.sync.i32/i64
    const Type& vt = e.formals[1];
    Value mask = convert(arg(0), kI32);
    Value v = convert(arg(1), vt);
    std::string iw = "i" + std::to_string(vt.bits());
    std::string bits = vt.is_float() ? ins("bitcast " + llvm_value_type(vt) + " " + v.v + " to " + iw) : v.v;
    bool any = n == "match_any_sync";
    std::string fn = std::string("@llvm.nvvm.match.") + (any ? "any" : "all") + ".sync." + iw;
    std::string rty = any ? "i32" : "{i32, i1}";
    m_.declare("declare " + rty + " " + fn + "(i32, " + iw + ") nounwind");
    std::string r = ins("call " + rty + " " + fn + "(i32 " + mask.v + ", " + iw + " " + bits + ")");
    if (any) return {r, e.type};
    return make_aggregate(e.type, {{ins("extractvalue {i32, i1} " + r + ", 0"), kI32},
                                   {ins("extractvalue {i32, i1} " + r + ", 1"), Type::boolean()}});
  }
  if (n.ends_with("_sync")) {  // votes
    Value mask = convert(arg(0), kI32);
    std::string pred = truth(arg(1));
    int mode = n == "all_sync" ? 0 : n == "any_sync" ? 1 : n == "eq_sync" ? 2 : 3;
    m_.declare("declare {i32, i1} @llvm.nvvm.vote.sync(i32, i32, i1) nounwind");
    std::string r = ins("call {i32, i1} @llvm.nvvm.vote.sync(i32 " + mask.v + ", i32 " + std::to_string(mode) + ", i1 " + pred + ")");
    if (mode == 3) return {ins("extractvalue {i32, i1} " + r + ", 0"), e.type};
    return {ins("extractvalue {i32, i1} " + r + ", 1"), e.type};
  }
  if (n.size() == 4 && (n.starts_with("ld") || n.starts_with("st"))) return cache_hint(e);  // ldcg, stwt, ... (typer: cache_hint)
  if (n == "const.array_like") return arg(0);  // the constant array itself (typer: a bound NumPy array)
  if (n == "popc" || n == "clz") {
    const Type& t = e.formals[0];
    std::string ty = llvm_value_type(t), fn = "@llvm." + std::string(n == "popc" ? "ctpop." : "ctlz.") + ty;
    Value x = convert(arg(0), t);
    if (n == "popc") {
      m_.declare("declare " + ty + " " + fn + "(" + ty + ") nounwind readnone");
      return {ins("call " + ty + " " + fn + "(" + ty + " " + x.v + ")"), t};
    }
    // clz(0) is the width (numba-cuda passes is_zero_undef = false).
    m_.declare("declare " + ty + " " + fn + "(" + ty + ", i1) nounwind readnone");
    return {ins("call " + ty + " " + fn + "(" + ty + " " + x.v + ", i1 false)"), t};
  }
  if (n == "ffs" || n == "brev") {
    // libdevice's __nv_ffs/__nv_ffsll (1 + the lowest set bit's index, 0 for 0) and __nv_brev/__nv_brevll.
    // ffs widens narrower integers to 32 bits: sign or zero extension leaves the lowest set bit alone.
    const Type& t = e.formals[0];
    bool wide = t.bits() == 64;
    Value x = convert(arg(0), t);
    std::string ty = wide ? "i64" : "i32";
    if (!wide && t.bits() < 32) x = convert(x, Type::integer(32, t.is_signed()));
    std::string fn = n == "ffs" ? (wide ? "__nv_ffsll" : "__nv_ffs") : (wide ? "__nv_brevll" : "__nv_brev");
    std::string rty = n == "ffs" ? "i32" : ty;
    m_.declare("declare " + rty + " @" + fn + "(" + ty + ")");
    m_.uses_libdevice = true;
    return {ins("call " + rty + " @" + fn + "(" + ty + " " + x.v + ")"), e.type};
  }
  if (n == "fma") {
    const Type& t = e.type;
    std::string ty = llvm_value_type(t);
    Value a = convert(arg(0), t), b = convert(arg(1), t), c = convert(arg(2), t);
    std::string fn = intrinsic("fma", t, 3);
    return {ins("call " + ty + " " + fn + "(" + ty + " " + a.v + ", " + ty + " " + b.v + ", " + ty + " " + c.v + ")"), t};
  }
  if (n == "cbrt") {
    const Type& t = e.type;
    std::string ty = llvm_value_type(t);
    Value x = convert(arg(0), t);
    return {ins("call " + ty + " " + libdevice("cbrt", t, 1) + "(" + ty + " " + x.v + ")"), t};
  }
  if (n == "selp") {
    std::string test = truth(arg(0));
    Value a = arg(1), b = arg(2);
    std::string ty = llvm_value_type(e.type);
    return {ins("select i1 " + test + ", " + ty + " " + a.v + ", " + ty + " " + b.v), e.type};
  }
  if (n == "shared.array" || n == "local.array") {
    const Type& t = e.type;
    std::string ety = llvm_element_type(t.dtype());
    std::int64_t count = 1;
    for (std::int64_t d : e.shape) count *= d;
    if (n == "local.array") {
      std::string arr = "[" + std::to_string(count) + " x " + ety + "]";
      // A record is bytes to LLVM: align its array for the widest field (numbers keep their own). An
      // alignment= given is the alloca's, under numba-cuda's name for it.
      std::string a = e.alignment ? alloca_named("\"_cudapy_lmem", arr, static_cast<int>(e.alignment))
                    : t.dtype().is_record() ? alloca_aligned(arr, 16) : alloca(arr);
      std::string data = ins("getelementptr " + arr + ", " + arr + "* " + a + ", i64 0, i64 0");
      return constant_shape_array(t, data, e.shape);
    }
    if (count == 0) {
      // Dynamic shared memory: every such array starts at the one extern buffer; its length is the
      // launch's dynamic shared memory size over the item size. Every extern shared symbol starts there, so
      // an alignment= above 16 is one more symbol declared with it (the base is aligned for all of them).
      std::string sym = "__cb_dynamic_shared" + (e.alignment > 16 ? "_align" + std::to_string(e.alignment) : "");
      if (m_.helpers.insert(sym).second)
        m_.globals += "@" + sym + " = external addrspace(3) global [0 x i8], align " +
                      std::to_string(std::max<std::int64_t>(e.alignment, 16)) + "\n";
      std::string base = ins("getelementptr [0 x i8], [0 x i8] addrspace(3)* @" + sym + ", i64 0, i64 0");
      std::string typed = ins("bitcast i8 addrspace(3)* " + base + " to " + ety + " addrspace(3)*");
      std::string data = ins("addrspacecast " + ety + " addrspace(3)* " + typed + " to " + ety + "*");
      std::string bytes = ins("call i32 asm \"mov.u32 $0, %dynamic_smem_size;\", \"=r\"()");
      std::string wide = ins("zext i32 " + bytes + " to i64");
      std::int64_t isz = t.dtype().storage_size();
      std::string len = ins("udiv i64 " + wide + ", " + std::to_string(isz));
      return build_array(t, {"null", "null", len, std::to_string(isz), data, len, std::to_string(isz)});
    }
    std::string arr = "[" + std::to_string(count) + " x " + ety + "]";
    // numba-cuda's symbol name; its alignment= given, else 16 (a power of 2 at least any element's).
    std::string g = "@\"_cudapy_smem_" + std::to_string(m_.next_global++) + "\"";
    m_.globals += g + " = internal addrspace(3) global " + arr + " undef, align " +
                  std::to_string(e.alignment ? e.alignment : 16) + "\n";
    std::string first = ins("getelementptr " + arr + ", " + arr + " addrspace(3)* " + g + ", i64 0, i64 0");
    std::string data = ins("addrspacecast " + ety + " addrspace(3)* " + first + " to " + ety + "*");
    return constant_shape_array(t, data, e.shape);
  }
  return cuda_atomic(e);
}

Value FunctionEmitter::shuffle(const Expr& e, const Value& mask, const Value& value, const Value& lane) {
  const std::string& n = e.target;
  int mode = n == "shfl_sync" ? 0 : n == "shfl_up_sync" ? 1 : n == "shfl_down_sync" ? 2 : 3;
  std::string clamp = mode == 1 ? "0" : "31";
  m_.declare("declare {i32, i1} @llvm.nvvm.shfl.sync.i32(i32, i32, i32, i32, i32) nounwind");
  auto shfl32 = [&](const std::string& v) {
    std::string r = ins("call {i32, i1} @llvm.nvvm.shfl.sync.i32(i32 " + mask.v + ", i32 " + std::to_string(mode) + ", i32 " +
                        v + ", i32 " + lane.v + ", i32 " + clamp + ")");
    return ins("extractvalue {i32, i1} " + r + ", 0");
  };
  const Type& t = value.t;
  std::string ty = llvm_value_type(t);
  if (t.bits() == 32) {
    std::string bits = t.is_float() ? ins("bitcast float " + value.v + " to i32") : value.v;
    std::string r = shfl32(bits);
    return {t.is_float() ? ins("bitcast i32 " + r + " to float") : r, t};
  }
  // 64-bit values move as two 32-bit halves.
  std::string bits = t.is_float() ? ins("bitcast double " + value.v + " to i64") : value.v;
  std::string lo = shfl32(ins("trunc i64 " + bits + " to i32"));
  std::string hi = shfl32(ins("trunc i64 " + ins("lshr i64 " + bits + ", 32") + " to i32"));
  std::string r = ins("or i64 " + ins("zext i32 " + lo + " to i64") + ", " + ins("shl i64 " + ins("zext i32 " + hi + " to i64") + ", 32"));
  return {t.is_float() ? ins("bitcast i64 " + r + " to double") : r, t};
}

Value FunctionEmitter::cuda_atomic(const Expr& e) {
  std::string op = e.target.substr(7);
  Value a = expr(*e.kids[1]);
  const Type& d = e.type;
  std::string ty = llvm_value_type(d);
  std::string ptr;
  std::size_t first_value = 3;
  if (op == "compare_and_swap") {
    ptr = array_field(a, 4).v;
    first_value = 2;
  } else {
    ptr = element_pointer(a, *e.kids[2], e.formals);
  }
  std::vector<Value> vals;
  for (std::size_t i = first_value; i < e.kids.size(); ++i) vals.push_back(convert(expr(*e.kids[i]), d));
  const Value& v = vals[0];
  std::string ity = "i" + std::to_string(d.bits());
  if (op == "cas" || op == "compare_and_swap") {
    std::string r = ins("cmpxchg " + ty + "* " + ptr + ", " + ty + " " + v.v + ", " + ty + " " + vals[1].v + " monotonic monotonic");
    return {ins("extractvalue {" + ty + ", i1} " + r + ", 0"), d};
  }
  if (op == "nanmax" || op == "nanmin") {
    if (d.is_int()) op = op.substr(3);  // on integers numba-cuda's nanmax/nanmin are max/min
  }
  if (d.is_int() && op != "inc" && op != "dec") {
    std::string rmw = op == "add" ? "add" : op == "sub" ? "sub" : op == "and_" ? "and" : op == "or_" ? "or" : op == "xor" ? "xor"
                    : op == "exch" ? "xchg" : op == "max" ? (d.is_signed() ? "max" : "umax") : (d.is_signed() ? "min" : "umin");
    return {ins("atomicrmw " + rmw + " " + ty + "* " + ptr + ", " + ty + " " + v.v + " monotonic"), d};
  }
  if (op == "inc" && d.bits() == 32) {
    m_.declare("declare i32 @llvm.nvvm.atomic.load.inc.32.p0i32(i32*, i32) nounwind");
    return {ins("call i32 @llvm.nvvm.atomic.load.inc.32.p0i32(i32* " + ptr + ", i32 " + v.v + ")"), d};
  }
  if (op == "dec" && d.bits() == 32) {
    m_.declare("declare i32 @llvm.nvvm.atomic.load.dec.32.p0i32(i32*, i32) nounwind");
    return {ins("call i32 @llvm.nvvm.atomic.load.dec.32.p0i32(i32* " + ptr + ", i32 " + v.v + ")"), d};
  }
  std::string sfx = d.bits() == 32 ? "f32.p0f32" : "f64.p0f64";
  if (op == "add" || op == "sub") {
    std::string val = v.v;
    if (op == "sub") val = ins("fsub " + ty + " " + float_const(-0.0, d).v + ", " + v.v);
    std::string fn = "llvm.nvvm.atomic.load.add." + sfx;
    m_.declare("declare " + ty + " @" + fn + "(" + ty + "*, " + ty + ") nounwind");
    return {ins("call " + ty + " @" + fn + "(" + ty + "* " + ptr + ", " + ty + " " + val + ")"), d};
  }
  if (op == "exch") {
    std::string iptr = ins("bitcast " + ty + "* " + ptr + " to " + ity + "*");
    std::string bits = ins("bitcast " + ty + " " + v.v + " to " + ity);
    std::string old = ins("atomicrmw xchg " + ity + "* " + iptr + ", " + ity + " " + bits + " monotonic");
    return {ins("bitcast " + ity + " " + old + " to " + ty), d};
  }
  // A compare-and-swap loop: float max/min (numba-cuda's: NaNs and values that would not change the
  // element leave it alone) and 64-bit inc/dec (CUDA's atomicInc/atomicDec rules).
  std::string iptr = ins("bitcast " + ty + "* " + ptr + " to " + ity + "*");
  std::string start = ins("load volatile " + ity + ", " + ity + "* " + iptr);
  std::string slot = alloca(ity);
  line("store " + ity + " " + start + ", " + ity + "* " + slot);
  std::string loop = label("atomic_loop"), swap = label("atomic_swap"), done = label("atomic_done");
  br(loop);
  start_block(loop);
  std::string old_bits = ins("load " + ity + ", " + ity + "* " + slot);
  std::string next_bits, keep;
  if (d.is_float() && (op == "nanmax" || op == "nanmin")) {
    // numba-cuda's ___numba_atomic_*_nanmax/nanmin: a NaN value leaves the element alone; a NaN element
    // is replaced by any other value.
    std::string old = ins("bitcast " + ity + " " + old_bits + " to " + ty);
    std::string nan_value = ins("fcmp uno " + ty + " " + v.v + ", " + v.v);
    std::string holds = ins(std::string("fcmp ") + (op == "nanmax" ? "oge " : "ole ") + ty + " " + old + ", " + v.v);
    keep = ins("or i1 " + nan_value + ", " + holds);
    next_bits = ins("bitcast " + ty + " " + v.v + " to " + ity);
  } else if (d.is_float()) {
    std::string old = ins("bitcast " + ity + " " + old_bits + " to " + ty);
    keep = ins(std::string("fcmp ") + (op == "max" ? "ule " : "uge ") + ty + " " + v.v + ", " + old);
    next_bits = ins("bitcast " + ty + " " + v.v + " to " + ity);
  } else if (op == "inc") {
    std::string wrap = ins("icmp uge " + ity + " " + old_bits + ", " + v.v);
    std::string inc = ins("add " + ity + " " + old_bits + ", 1");
    next_bits = ins("select i1 " + wrap + ", " + ity + " 0, " + ity + " " + inc);
    keep = "false";
  } else {  // dec
    std::string zero = ins("icmp eq " + ity + " " + old_bits + ", 0");
    std::string above = ins("icmp ugt " + ity + " " + old_bits + ", " + v.v);
    std::string reset = ins("or i1 " + zero + ", " + above);
    std::string dec = ins("sub " + ity + " " + old_bits + ", 1");
    next_bits = ins("select i1 " + reset + ", " + ity + " " + v.v + ", " + ity + " " + dec);
    keep = "false";
  }
  cond_br(keep, done, swap);
  start_block(swap);
  std::string r = ins("cmpxchg " + ity + "* " + iptr + ", " + ity + " " + old_bits + ", " + ity + " " + next_bits + " monotonic monotonic");
  std::string seen = ins("extractvalue {" + ity + ", i1} " + r + ", 0");
  std::string ok = ins("extractvalue {" + ity + ", i1} " + r + ", 1");
  line("store " + ity + " " + seen + ", " + ity + "* " + slot);
  cond_br(ok, done, loop);
  start_block(done);
  std::string result = ins("load " + ity + ", " + ity + "* " + slot);
  if (d.is_float()) return {ins("bitcast " + ity + " " + result + " to " + ty), d};
  return {result, d};
}

}  // namespace cubridge::compiler
