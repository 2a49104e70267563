// Internal: typing of the CUDA intrinsics (see function_typer.hpp), spelt as numba-cuda spells them
// (`from numba import cuda`: cuda.grid(1), cuda.threadIdx.x, cuda.shared.array(...), cuda.atomic.add(...))
// or through cubridge's markers (cubridge.grid(1), ...). Result types are numba-cuda's: the special
// registers are int32, grid()/gridsize() int64, ballot_sync uint32, atomics the array's element type.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

constexpr const char* kIntrinsics =
    "grid, gridsize, threadIdx/blockIdx/blockDim/gridDim.x/.y/.z, laneid, warpsize, syncthreads, "
    "syncthreads_count, syncthreads_and, syncthreads_or, syncwarp, threadfence, threadfence_block, "
    "threadfence_system, shared.array, local.array, atomic.add/sub/max/min/nanmax/nanmin/and_/or_/xor/exch/inc/dec/cas/"
    "compare_and_swap, shfl_sync, shfl_up_sync, shfl_down_sync, shfl_xor_sync, all_sync, any_sync, eq_sync, "
    "ballot_sync, match_any_sync, match_all_sync, activemask, lanemask_lt, popc, clz, ffs, brev, fma, cbrt, selp, const.array_like, "
    "ldca, ldcg, ldcs, ldlu, ldcv, stcg, stcs, stwb, stwt, nanosleep";

constexpr const char* kCalls[] = {
    "grid", "gridsize", "syncthreads", "syncthreads_count", "syncthreads_and", "syncthreads_or", "syncwarp",
    "threadfence", "threadfence_block", "threadfence_system", "shared.array", "local.array", "atomic.add",
    "atomic.sub", "atomic.max", "atomic.min", "atomic.and_", "atomic.or_", "atomic.xor", "atomic.exch",
    "atomic.inc", "atomic.dec", "atomic.cas", "atomic.compare_and_swap", "shfl_sync", "shfl_up_sync",
    "shfl_down_sync", "shfl_xor_sync", "all_sync", "any_sync", "eq_sync", "ballot_sync", "match_any_sync",
    "match_all_sync", "activemask",
    "lanemask_lt", "popc", "clz", "ffs", "brev", "fma", "cbrt", "selp", "const.array_like", "nanosleep"};

bool is_dim3(std::string_view n) {
  return n == "threadIdx" || n == "blockIdx" || n == "blockDim" || n == "gridDim";
}

Type i32() { return Type::integer(32, true); }
Type u32() { return Type::integer(32, false); }

// The float type numba-cuda's fma and cbrt pick for an argument: float32 for the types that convert to it
// safely (bool, int8, uint8, int16, float16, float32), float64 for every other number.
bool fits_float32(const Type& t) {
  if (t.is_bool()) return true;
  if (t.is_float()) return t.bits() <= 32;
  return t.is_int() && (t.bits() == 8 || (t.bits() == 16 && t.is_signed()));
}

}  // namespace

std::optional<FunctionTyper::Intrinsic> FunctionTyper::intrinsic_of(const std::string& path) {
  std::string rest, module;
  if (path.starts_with("numba.cuda.")) rest = path.substr(11), module = "cuda.";
  else if (path.starts_with("cubridge.")) rest = path.substr(9), module = "cubridge.";
  else return std::nullopt;
  auto found = [&] { return Intrinsic{rest, module + rest}; };
  if (rest == "laneid" || rest == "warpsize") return found();
  std::size_t dot = rest.find('.');
  if (is_dim3(rest.substr(0, dot))) return found();
  if (rest == "atomic" || rest == "shared" || rest == "local" || rest == "const") return found();
  if (rest == "cg" || rest.starts_with("cg.")) return found();
  for (const char* c : kCalls)
    if (rest == c) return found();
  if (is_cache_hint(rest)) return found();
  if (rest.starts_with("atomic.") || rest.starts_with("shared.") || rest.starts_with("local.") ||
      rest.starts_with("const."))
    return found();
  return std::nullopt;
}

Type FunctionTyper::cuda_attribute(Expr& e, const Intrinsic& in) {
  const std::string& name = in.name;
  e.target = name;
  std::size_t dot = name.find('.');
  std::string head = name.substr(0, dot);
  if (name == "laneid" || name == "warpsize") return i32();
  if (is_dim3(head)) {
    std::string axis = dot == std::string::npos ? "" : name.substr(dot + 1);
    if (axis == "x" || axis == "y" || axis == "z") return i32();
    error(e.loc, in.shown + " is not supported; read " + in.shown.substr(0, in.shown.size() - name.size()) +
                     head + ".x, .y or .z");
  }
  error(e.loc, in.shown + " is not a value; the CUDA intrinsics are: " + kIntrinsics);
}

Type FunctionTyper::cuda_call(Expr& e, const Intrinsic& in) {
  const std::string& name = in.name;
  const std::string& shown = in.shown;
  e.callee = Callee::Intrinsic;
  e.target = name;
  std::vector<Expr*> args;
  for (std::size_t i = 1; i < e.kids.size(); ++i) args.push_back(e.kids[i].get());
  if (name == "shared.array" || name == "local.array") return cuda_array_alloc(e, in, args);
  if (name.starts_with("atomic.")) return cuda_atomic(e, in);
  if (name.starts_with("cg.")) return this_grid(e, in);
  if (is_cache_hint(name)) return cache_hint(e, in);
  bool known = false;
  for (const char* c : kCalls) known = known || name == c;
  if (!known) error(e.loc, shown + "() is not supported; the CUDA intrinsics are: " + kIntrinsics);
  if (!e.keywords.empty() && name != "syncwarp")
    error(e.loc, shown + "() takes no keyword arguments");
  std::size_t n = args.size();
  if (name == "grid" || name == "gridsize") {
    arity(e, shown, n, 1, 1);
    auto d = const_int(*args[0]);
    if (!d)  // numba's words for a non-constant argument first
      error(args[0]->loc, "RequireLiteralValue: " + shown + "(ndim) takes the constant 1, 2 or 3 (the number of grid "
                          "dimensions), not a value known only at run time");
    if (*d < 1 || *d > 3)
      error(args[0]->loc, shown + "(ndim) takes the constant 1, 2 or 3 (the number of grid dimensions), got " +
                              std::to_string(*d));
    args[0]->type = i64();
    e.shape = {*d};
    if (*d == 1) return i64();
    return Type::tuple(std::vector<Type>(static_cast<std::size_t>(*d), i64()));
  }
  bool unknown = false;
  std::vector<Type> ts = args_of(e, unknown);
  e.formals = ts;
  auto need_int = [&](std::size_t i, const char* what) {
    if (!ts[i].is_int() && !ts[i].is_bool())
      error(args[i]->loc, shown + "(): " + what + " must be an integer, got " + ts[i].name());
  };
  if (name == "syncthreads" || name.starts_with("threadfence") || name == "activemask" || name == "lanemask_lt") {
    arity(e, shown, n, 0, 0);
    return (name == "activemask" || name == "lanemask_lt") ? u32() : Type::none();
  }
  if (unknown) return Type();
  if (name == "nanosleep") {
    // numba-cuda's one case, void(uint32): any number converts to it (a float unsafely, as numba does).
    arity(e, shown, n, 1, 1);
    if (!ts[0].is_scalar() || ts[0].is_complex())
      error(args[0]->loc, shown + "(ns): the duration must be a number of nanoseconds (uint32), got " + ts[0].name());
    e.formals = {u32()};
    return Type::none();
  }
  if (name == "syncthreads_count" || name == "syncthreads_and" || name == "syncthreads_or") {
    arity(e, shown, n, 1, 1);
    if (!ts[0].is_int() && !ts[0].is_bool())
      error(args[0]->loc, shown + "(predicate): the predicate must be an integer or a bool, got " + ts[0].name());
    return i32();
  }
  if (name == "syncwarp") {
    if (!e.keywords.empty() && (e.keywords.size() != 1 || e.keywords[0] != "mask"))
      error(e.loc, shown + "() takes one optional argument, mask");
    arity(e, shown, n, 0, 1);
    if (n == 1) need_int(0, "the mask");
    return Type::none();
  }
  if (name == "const.array_like") {
    // numba-cuda's cuda.const.array_like(X): X must be an array bound outside the kernel (a module
    // global or closure variable holding a NumPy array); the result is X in constant memory.
    arity(e, shown, n, 1, 1);
    if (!args[0]->constant_array)
      error(args[0]->loc, shown + "(ary): ary must be a NumPy array bound outside the kernel (a module-level or "
                                  "closure variable), got a value of type " + ts[0].name());
    return ts[0];
  }
  if (name == "popc" || name == "clz" || name == "ffs" || name == "brev") {
    // numba-cuda's cases: popc and clz keep the integer type, ffs returns uint32, brev works on uint32
    // or uint64 (any other integer converts to uint32, as numba-cuda picks). A bool counts as int8.
    arity(e, shown, n, 1, 1);
    const Type& v = ts[0];
    if (!v.is_int() && !v.is_bool())
      error(args[0]->loc, shown + "(): the argument must be an integer, got " + v.name());
    Type as = v.is_bool() ? Type::integer(8, true) : v;
    if (name == "brev") as = (v.is_int() && v.bits() == 64 && !v.is_signed()) ? Type::integer(64, false) : u32();
    e.formals = {as};
    return name == "ffs" ? u32() : as;
  }
  if (name == "fma" || name == "cbrt") {
    arity(e, shown, n, name == "fma" ? 3 : 1, name == "fma" ? 3 : 1);
    bool single = true;
    for (std::size_t i = 0; i < n; ++i) {
      if (!ts[i].is_scalar() || ts[i].is_complex())
        error(args[i]->loc, shown + "(): the arguments must be real numbers, got " + ts[i].name());
      single = single && fits_float32(ts[i]);
    }
    Type t = single ? Type::floating(32) : f64();
    e.formals.assign(n, t);
    return t;
  }
  if (name == "selp") {
    // selp(test, a, b): a if test else b, for a and b of one type among numba-cuda's (PTX selp's).
    arity(e, shown, n, 3, 3);
    if (!ts[0].is_scalar() || ts[0].is_complex())
      error(args[0]->loc, shown + "(test, a, b): the test must be a number or a bool, got " + ts[0].name());
    const Type& a = ts[1];
    bool supported = (a.is_float() && a.bits() >= 32) || (a.is_int() && a.bits() >= 16);
    if (!(a == ts[2]) || !supported)
      error(e.loc, shown + "(test, a, b): a and b must have the same type, one of float64, float32, int16, uint16, "
                           "int32, uint32, int64, uint64; got " + a.name() + " and " + ts[2].name());
    return a;
  }
  if (name.starts_with("shfl_")) {
    arity(e, shown, n, 3, 3);
    need_int(0, "the mask");
    need_int(2, name == "shfl_sync" ? "the source lane" : name == "shfl_xor_sync" ? "the lane mask" : "the delta");
    const Type& v = ts[1];
    // numba-cuda's cases: int32, int64, float32, float64 (narrower values convert to them).
    if (v.is_bool() || (v.is_int() && v.bits() <= 32)) return i32();
    if (v.is_int()) return i64();
    if (v.is_float()) return v.bits() == 64 ? f64() : Type::floating(32);
    error(args[1]->loc, shown + "(): the value must be an integer or a float (int32, int64, float32, float64), got " +
                            v.name());
  }
  if (name == "match_any_sync" || name == "match_all_sync") {
    // numba-cuda's cases: an int32 mask and an int32, int64, float32 or float64 value (the usual score picks
    // one; a float is compared by its bits). match_any_sync gives the int32 mask of the lanes holding the
    // same value; match_all_sync (that mask or 0, whether every lane of the mask holds it).
    arity(e, shown, n, 2, 2);
    need_int(0, "the mask");
    Type result = name == "match_any_sync" ? i32() : Type::tuple({i32(), Type::boolean()});
    const std::vector<Case> cases = {{i32(), i32(), result}, {i32(), i64(), result},
                                     {i32(), Type::floating(32), result}, {i32(), f64(), result}};
    auto r = ts[1].is_scalar() && !ts[1].is_complex() ? resolve_cases(cases, ts[0], ts[1]) : std::nullopt;
    if (!r)
      error(args[1]->loc, shown + "(mask, value): the value must be an int32, int64, float32 or float64 (or a "
                              "number that converts to one), got " + ts[1].name());
    e.formals = {r->lhs, r->rhs};
    return result;
  }
  if (name.ends_with("_sync")) {  // all_sync, any_sync, eq_sync, ballot_sync
    arity(e, shown, n, 2, 2);
    // numba-cuda's vote validation (its words first): a mask of an integer type (not bool), a predicate of an
    // integer type or bool.
    if (!ts[0].is_int())
      error(args[0]->loc, "Mask type must be an integer: " + shown + "(mask, predicate) takes an integer mask (such as "
                          "0xffffffff), got " + ts[0].name());
    if (!ts[1].is_int() && !ts[1].is_bool())
      error(args[1]->loc, "Predicate must be an integer or boolean: " + shown + "(mask, predicate) got a predicate of "
                          "type " + ts[1].name() + "; compare it first (x != 0)");
    return name == "ballot_sync" ? u32() : Type::boolean();
  }
  error(e.loc, shown + "() is not supported; the CUDA intrinsics are: " + kIntrinsics);
}

std::string FunctionTyper::numba_argument_spelling(Expr& k) {
  if (auto v = const_int(k)) return "Literal[int](" + std::to_string(*v) + ")";
  if (auto values = constant_int_list(k)) {  // numba's reflected list of the items, with their values
    std::string joined;
    for (std::int64_t v : *values) joined += (joined.empty() ? "" : ", ") + std::to_string(v);
    return "list(int64)<iv=[" + joined + "]>";
  }
  if (k.kind != ExprKind::Tuple) return expr(k).name();
  std::vector<std::string> items;
  for (auto& kid : k.kids) items.push_back(numba_argument_spelling(*kid));
  bool same = !items.empty() && std::all_of(items.begin(), items.end(), [&](const std::string& i) { return i == items[0]; });
  if (same) return "UniTuple(" + items[0] + " x " + std::to_string(items.size()) + ")";
  std::string joined;
  for (const std::string& i : items) joined += (joined.empty() ? "" : ", ") + i;
  return "Tuple(" + joined + ")";
}

std::optional<std::vector<std::int64_t>> FunctionTyper::constant_int_list(const Expr& e) {
  if (e.kind != ExprKind::Unsupported || e.name.rfind("a list ", 0) != 0 || e.kids.empty()) return std::nullopt;
  std::vector<std::int64_t> values;
  for (const auto& k : e.kids) {
    auto v = const_int(*k);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  return values;
}

std::int64_t FunctionTyper::array_alignment(Expr& a, const std::string& shown) {
  bool none = a.kind == ExprKind::NoneLit;
  std::optional<std::int64_t> v;
  if (a.kind == ExprKind::Int && !a.int_unsigned) v = static_cast<std::int64_t>(a.ival);
  if (a.kind == ExprKind::Name && slot_of(a.name) < 0) {  // a module-level or closure constant
    const Constant* c = constant_of(a.name, a.loc);
    none = c && c->type.is_none();
    if (c && c->type.is_int()) v = c->type.is_signed() ? c->i : static_cast<std::int64_t>(c->u);
  }
  if (none) return 0;
  // numba-cuda's words first (its RequireLiteralValue and ValueErrors), then what cubridge accepts.
  if (!v)
    error(a.loc, "RequireLiteralValue: alignment must be a constant integer: " + shown + "(shape, dtype, alignment) "
                 "takes an integer literal or a module-level or closure integer (or None), a power of 2 and a "
                 "multiple of 8");
  std::string given = " (" + shown + " got alignment=" + std::to_string(*v) + "; it takes a power of 2 that is a "
                      "multiple of 8, such as 16, 64 or 256)";
  if (*v <= 0) error(a.loc, "Alignment must be positive" + given);
  if ((*v & (*v - 1)) != 0) error(a.loc, "Alignment must be a power of 2" + given);
  if (*v % 8 != 0) error(a.loc, "Alignment must be a multiple of 8" + given);
  a.type = i64();
  return *v;
}

std::string FunctionTyper::no_implementation_words(const std::string& name, Expr& shape, Expr& dtype) {
  std::string dt = dotted(dtype);
  auto t = dt.empty() ? std::nullopt : parse_type_name(dt.substr(dt.rfind('.') + 1));
  std::string dtype_spelling = t ? "class(" + t->name() + ")" : (dt.empty() ? "?" : dt);
  return "No implementation of function Function(<function " + name + ">) found for signature:\n \n >>> array(shape=" +
         numba_argument_spelling(shape) + ", dtype=" + dtype_spelling + ")\n \n";
}

Type FunctionTyper::cuda_array_alloc(Expr& e, const Intrinsic& in, std::vector<Expr*> args) {
  const std::string& name = in.name;
  const std::string& shown = in.shown;
  // shape, dtype and numba-cuda's optional alignment, positionally or by keyword.
  Expr* shape = nullptr;
  Expr* dtype = nullptr;
  Expr* alignment = nullptr;
  std::size_t positional = args.size() - e.keywords.size();
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string kw = i < positional ? (i == 0 ? "shape" : i == 1 ? "dtype" : i == 2 ? "alignment" : "")
                                    : e.keywords[i - positional];
    if (kw == "shape" && !shape) shape = args[i];
    else if (kw == "dtype" && !dtype) dtype = args[i];
    else if (kw == "alignment" && !alignment) alignment = args[i];
    else error(args[i]->loc, shown + "(shape, dtype, alignment=None) takes a shape, a dtype and an optional alignment");
  }
  if (!shape || !dtype) error(e.loc, shown + "(shape, dtype) needs both a shape and a dtype");
  if (alignment) e.alignment = array_alignment(*alignment, shown);
  std::vector<std::int64_t> dims;
  bool ok = true;
  if (shape->kind == ExprKind::Tuple) {
    for (auto& k : shape->kids) {
      auto v = const_int(*k);
      ok = ok && v;
      if (v) dims.push_back(*v);
    }
  } else if (auto v = const_int(*shape)) {
    dims.push_back(*v);
  } else if (constant_int_list(*shape)) {
    ok = false;  // numba-cuda has no shared.array / local.array for a list shape (its words below)
  } else if (const Constant* c = shape->kind == ExprKind::Name && slot_of(shape->name) < 0
                                     ? constant_of(shape->name, shape->loc) : nullptr;
             c && c->type.is_tuple()) {
    // A tuple bound outside the kernel (SM_SIZE = tpb, tpb at module level or in a closure), as numba
    // reads a global tuple of integers as a constant shape.
    for (const Constant& k : c->elements) {
      ok = ok && k.type.is_int();
      dims.push_back(k.type.is_signed() ? k.i : static_cast<std::int64_t>(k.u));
    }
  } else {
    ok = false;
  }
  if (!ok || dims.empty())
    error(shape->loc, no_implementation_words(name, *shape, *dtype) + shown + ": the shape must be an integer "
                      "constant or a tuple of them (literals, or module-level or closure constants, or a local "
                      "variable assigned one constant once), known when the kernel is compiled");
  bool dynamic = name == "shared.array" && dims.size() == 1 && dims[0] == 0;
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 1 && !dynamic)
      error(shape->loc, shown + ": dimension " + std::to_string(d) + " of the shape must be positive" +
                            (name == "shared.array" ? " (shape 0 alone asks for dynamic shared memory)" : ""));
    count = d > 0 && count > (INT64_MAX / d) ? INT64_MAX : count * std::max<std::int64_t>(d, 1);
  }
  if (count > (std::int64_t{1} << 31))
    error(shape->loc, shown + ": " + std::to_string(count) + " elements is more than any GPU's memory of this kind holds");
  std::string dt = dotted(*dtype);
  std::optional<Type> t;
  if (dtype->kind == ExprKind::Str) {  // dtype='float32': numba reads the string as np.dtype(...) does
    static constexpr const char* kNumpyNames[] = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                                  "uint32", "uint64", "float16", "float32", "float64",
                                                  "complex64", "complex128"};
    bool named = std::any_of(std::begin(kNumpyNames), std::end(kNumpyNames),
                             [&](const char* n) { return dtype->name == n; });
    if (!named || dtype->ival != 0)
      error(dtype->loc, "Invalid NumPy dtype specified: '" + dtype->name + "'; " + shown + " takes a dtype string "
                        "naming a NumPy number type (int8 ... uint64, float16, float32, float64, complex64, "
                        "complex128, bool), or a number type such as numba.float32 or np.float32");
    t = parse_type_name(dtype->name == "bool" ? "boolean" : dtype->name);
  } else if (!dt.empty()) {
    t = parse_type_name(dt.substr(dt.rfind('.') + 1));
  }
  else if (dtype->kind != ExprKind::Str) t = array_dtype_of(*dtype);  // cuda.local.array(n, x.dtype)
  if (auto bound = prog_.options.dtypes.find(dtype->name);
      dtype->kind == ExprKind::Name && slot_of(dtype->name) < 0 && bound != prog_.options.dtypes.end())
    t = bound->second;  // a NumPy structured dtype or a Numba Record bound outside the kernel
  if (!t || !(t->is_scalar() || t->is_record() || t->is_foreign()))
    error(dtype->loc, shown + ": the dtype must be a number type such as numba.float32, np.float32 or cubridge.int32, "
                              "an array's .dtype, or a record: a NumPy structured dtype or numba.from_dtype(dt) "
                              "bound outside the kernel (or a numba extension type of integers and floats, bound "
                              "the same way)" +
                              (assigned_name_.empty() ? std::string()
                                                      : "; so, as numba-cuda says, Cannot infer the type of variable '" +
                                                            assigned_name_ + "'"));
  shape->type = i64();
  e.shape = dims;
  return Type::array(*t, static_cast<int>(dims.size()), 'C');
}

Type FunctionTyper::cuda_atomic(Expr& e, const Intrinsic& in) {
  const std::string& shown = in.shown;
  std::string op = in.name.substr(7);
  bool cas = op == "cas", cas_short = op == "compare_and_swap";
  static const char* ops[] = {"add", "sub", "max", "min", "nanmax", "nanmin", "and_", "or_", "xor", "exch", "inc", "dec",
                              "cas", "compare_and_swap"};
  if (std::none_of(std::begin(ops), std::end(ops), [&](const char* o) { return op == o; }))
    error(e.loc, shown + " is not supported; the atomics are add, sub, max, min, nanmax, nanmin, and_, or_, xor, exch, "
                         "inc, dec, cas, compare_and_swap");
  if (!e.keywords.empty()) error(e.loc, shown + "() takes no keyword arguments");
  std::size_t n = e.kids.size() - 1, want = cas ? 4 : 3;
  if (n != want)
    error(e.loc, shown + std::string(cas ? "(array, index, old, value)" : cas_short ? "(array, old, value)" : "(array, index, value)") +
                     " takes " + std::to_string(want) + " arguments, got " + std::to_string(n));
  Type arr = expr(*e.kids[1]);
  if (arr.is_unknown()) return arr;
  if (!arr.is_array()) error(e.kids[1]->loc, shown + "(): the first argument must be an array, got " + arr.name());
  if (arr.ndim() == 0)  // numba-cuda's atomic typing takes arrays of one or more dimensions only
    error(e.kids[1]->loc, shown + "() on a 0-d array (" + arr.name() + ") is not supported; numba-cuda's atomics "
                                  "take arrays of one or more dimensions: use an array of shape (1,) and index 0");
  std::vector<Type> idx;
  if (cas_short) {
    if (arr.ndim() != 1) error(e.kids[1]->loc, shown + "() takes a 1-d array (it works on element 0), got " + arr.name());
  } else {
    idx = atomic_indices(*e.kids[2], shown);
    if (idx.empty()) return Type();
    if (static_cast<int>(idx.size()) != arr.ndim())
      error(e.kids[2]->loc, shown + "(): the index must name one element: " + std::to_string(arr.ndim()) +
                                " integer(s) for " + arr.name() + ", got " + std::to_string(idx.size()));
  }
  const Expr& a = *e.kids[1];
  if (arr.readonly())
    error(a.loc, shown + "() cannot update " + (a.kind == ExprKind::Name ? "'" + a.name + "'" : std::string("this array")) +
                     ": it is a read-only array (" + arr.name() + ")");
  std::size_t first_value = cas_short ? 2 : 3;
  for (std::size_t i = first_value; i < e.kids.size(); ++i) {
    Type v = expr(*e.kids[i]);
    if (v.is_unknown()) return v;
    if (!v.is_scalar() || v.is_complex())
      error(e.kids[i]->loc, shown + "(): the value must be a number, got " + v.name());
  }
  const Type& d = arr.dtype();
  bool int32_64 = d.is_int() && (d.bits() == 32 || d.bits() == 64);
  bool float32_64 = d.is_float() && (d.bits() == 32 || d.bits() == 64);
  bool ok = false;
  const char* accepted = "";
  if (op == "add" || op == "sub" || op == "max" || op == "min" || op == "nanmax" || op == "nanmin" || op == "exch") {
    ok = int32_64 || float32_64;
    accepted = "int32, int64, uint32, uint64, float32, float64";
  } else if (op == "and_" || op == "or_" || op == "xor" || cas || cas_short) {
    ok = int32_64;
    accepted = "int32, int64, uint32, uint64";
  } else {  // inc, dec
    ok = int32_64 && !d.is_signed();
    accepted = "uint32, uint64";
  }
  if (!ok)
    error(e.loc, shown + "() on an array of " + d.name() + " is not supported; its element type must be one of " + accepted);
  e.callee = Callee::Intrinsic;
  e.formals = idx;
  return d;
}

Type FunctionTyper::constant_array_name(Expr& e, const ConstantArray& a) {
  // Constant memory is 64 KiB per module; numba-cuda's arrays go there too.
  constexpr std::int64_t kConstantMemory = 64 * 1024;
  if (prog_.constant_arrays_used.insert(e.name).second) {
    prog_.constant_bytes += static_cast<std::int64_t>(a.bytes.size());
    if (prog_.constant_bytes > kConstantMemory)
      error(e.loc, "array '" + e.name + "' (" + std::to_string(a.bytes.size()) + " bytes) does not fit: the " +
                       "module's constant arrays take " + std::to_string(prog_.constant_bytes) +
                       " bytes and constant memory holds " + std::to_string(kConstantMemory) +
                       "; pass large arrays as kernel arguments");
  }
  e.constant_array = &a;
  return Type::array(a.dtype, static_cast<int>(a.shape.size()), 'C', /*readonly=*/true);
}

}  // namespace cubridge::compiler::typer_detail
