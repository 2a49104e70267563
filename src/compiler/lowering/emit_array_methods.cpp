// Internal: a.reshape(shape), a.view(dtype), a.ravel(), a.T, a.transpose(axes) and c.copy() of a captured
// array in NVVM IR (see emitter.hpp), as numba-cuda lowers them (numba/cuda/np/arrayobj.py: array_reshape
// with normalize_reshape_value; array_view with _compatible_view and _change_dtype; array_ravel; array_T;
// array_transpose_tuple with permute_arrays). All but the copy are views of a's data; a shape, dtype or axes
// that do not fit raise ValueError with numba's message. The copy is a local array (typer: array_method).
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

void FunctionEmitter::raise_when(const std::string& condition, const std::string& exception,
                                 const std::string& message, SourceLoc loc) {
  std::string bad = label("method_raise"), ok = label("method_ok");
  cond_br(condition, bad, ok);
  start_block(bad);
  raise_exception(exception, {"s:" + message}, loc);
  start_block(ok);
}

Value FunctionEmitter::array_reshape(const Expr& e) {
  const Type i64 = Type::integer(64, true);
  Value a = expr(*e.kids[0]->kids[0]);
  std::vector<std::string> dims;
  if (e.formals.size() == 1 && e.formals[0].is_tuple()) {
    Value shape = expr(*e.kids[1]);
    for (std::size_t k = 0; k < e.formals[0].elements().size(); ++k) dims.push_back(convert(extract(shape, k), i64).v);
  } else {
    for (std::size_t k = 1; k < e.kids.size(); ++k) dims.push_back(convert(expr(*e.kids[k]), i64).v);
  }
  // normalize_reshape_value: one negative extent is inferred from the others; the size is unchanged.
  const std::string size = array_field(a, 2).v;
  std::string known = "1", negatives = "0";
  std::vector<std::string> negative(dims.size());
  for (std::size_t k = 0; k < dims.size(); ++k) {
    negative[k] = ins("icmp slt i64 " + dims[k] + ", 0");
    known = ins("mul i64 " + known + ", " + ins("select i1 " + negative[k] + ", i64 1, i64 " + dims[k]));
    negatives = ins("add i64 " + negatives + ", " + ins("zext i1 " + negative[k] + " to i64"));
  }
  raise_when(ins("icmp ugt i64 " + negatives + ", 1"), "builtins.ValueError", "multiple negative shape values", e.loc);
  const std::string known_zero = ins("icmp eq i64 " + known + ", 0");
  const std::string divisor = ins("select i1 " + known_zero + ", i64 1, i64 " + known);
  const std::string inferred = ins("select i1 " + known_zero + ", i64 0, i64 " + ins("sdiv i64 " + size + ", " + divisor));
  const std::string fits_inferred =
      ins("select i1 " + known_zero + ", i1 " + ins("icmp eq i64 " + size + ", 0") + ", i1 " +
          ins("icmp eq i64 " + ins("srem i64 " + size + ", " + divisor) + ", 0"));
  const std::string fits = ins("select i1 " + ins("icmp eq i64 " + negatives + ", 0") + ", i1 " +
                               ins("icmp eq i64 " + size + ", " + known) + ", i1 " + fits_inferred);
  raise_when(ins("xor i1 " + fits + ", true"), "builtins.ValueError", "total size of new array must be unchanged", e.loc);
  for (std::size_t k = 0; k < dims.size(); ++k)
    dims[k] = ins("select i1 " + negative[k] + ", i64 " + inferred + ", i64 " + dims[k]);
  // A C-contiguous array reshaped in C order without a copy: C strides of the new shape.
  const std::int64_t isz = item_size(a.t.dtype());
  std::vector<std::string> strides(dims.size(), std::to_string(isz));
  for (std::size_t k = dims.size(); k-- > 1;) strides[k - 1] = ins("mul i64 " + strides[k] + ", " + dims[k]);
  std::vector<std::string> pieces = {"null", "null", size, std::to_string(isz), array_field(a, 4).v};
  pieces.insert(pieces.end(), dims.begin(), dims.end());
  pieces.insert(pieces.end(), strides.begin(), strides.end());
  return build_array(e.type, pieces);
}

Value FunctionEmitter::array_view(const Expr& e) {
  Value a = expr(*e.kids[0]->kids[0]);
  const Type& to = e.type.dtype();
  const std::int64_t old_size = item_size(a.t.dtype()), new_size = item_size(to);
  const int nd = a.t.ndim();
  std::vector<std::string> dims, strides;
  for (int k = 0; k < nd; ++k) {
    dims.push_back(array_field(a, 5, k).v);
    strides.push_back(axis_stride(a, k));
  }
  const std::string data =
      ins("bitcast " + llvm_element_type(a.t.dtype()) + "* " + array_field(a, 4).v + " to " + llvm_element_type(to) + "*");
  std::string nitems = array_field(a, 2).v;
  if (old_size != new_size) {
    const std::string old_s = std::to_string(old_size), new_s = std::to_string(new_size);
    // _compatible_view (NumPy's rules): the last axis contiguous, the sizes dividing each other.
    const std::size_t last = static_cast<std::size_t>(nd - 1);
    std::string strided = ins("and i1 " + ins("icmp ne i64 " + dims[last] + ", 1") + ", " +
                              ins("icmp ne i64 " + nitems + ", 0"));
    strided = ins("and i1 " + strided + ", " + ins("icmp ne i64 " + strides[last] + ", " + old_s));
    raise_when(strided, "builtins.ValueError",
               "To change to a dtype of a different size, the last axis must be contiguous", e.loc);
    if (new_size < old_size && old_size % new_size != 0)
      raise_when("true", "builtins.ValueError",
                 "When changing to a smaller dtype, its size must be a divisor of the size of original dtype", e.loc);
    if (new_size > old_size)
      raise_when(ins("icmp ne i64 " + ins("srem i64 " + ins("mul i64 " + dims[last] + ", " + old_s) + ", " + new_s) + ", 0"),
                 "builtins.ValueError",
                 "When changing to a larger dtype, its size must be a divisor of the total size in bytes of the last "
                 "axis of the array.", e.loc);
    // _change_dtype: the contiguous axis (the last for C, the first for F; an 'A' array's by its strides)
    // takes the new item size.
    const char layout = a.t.layout();
    std::string on_last = layout == 'C' ? "true" : layout == 'F' ? "false"
                                                                 : ins("icmp eq i64 " + strides[last] + ", " + old_s);
    if (layout == 'A') {
      std::string on_first = ins("icmp eq i64 " + strides[0] + ", " + old_s);
      raise_when(ins("xor i1 " + ins("or i1 " + on_last + ", " + on_first) + ", true"), "builtins.ValueError",
                 "new type not compatible with array", e.loc);
    }
    // The axis's new extent when `pick` holds; raises when its bytes do not divide into new items.
    auto changed = [&](std::size_t i, const std::string& pick) {
      if (new_size < old_size) return ins("mul i64 " + dims[i] + ", " + std::to_string(old_size / new_size));
      std::string bytes = ins("mul i64 " + dims[i] + ", " + old_s);
      std::string ragged = ins("icmp ne i64 " + ins("srem i64 " + bytes + ", " + new_s) + ", 0");
      raise_when(ins("and i1 " + pick + ", " + ragged), "builtins.ValueError", "new type not compatible with array", e.loc);
      return ins("sdiv i64 " + bytes + ", " + new_s);
    };
    std::vector<std::size_t> axes = layout == 'C' ? std::vector<std::size_t>{last}
                                    : layout == 'F' || nd == 1 ? std::vector<std::size_t>{0}
                                                               : std::vector<std::size_t>{last, 0};
    std::vector<std::string> new_dims = dims, new_strides = strides;
    for (std::size_t i : axes) {
      // One axis of an 'A' array is the one both tests name; of several, the last when it is contiguous.
      std::string pick = axes.size() == 1 ? "true" : i == last ? on_last : ins("xor i1 " + on_last + ", true");
      std::string extent = changed(i, pick);
      new_dims[i] = ins("select i1 " + pick + ", i64 " + extent + ", i64 " + new_dims[i]);
      new_strides[i] = ins("select i1 " + pick + ", i64 " + new_s + ", i64 " + new_strides[i]);
    }
    dims = new_dims;
    strides = new_strides;
    nitems = "1";
    for (const std::string& d : dims) nitems = ins("mul i64 " + nitems + ", " + d);
  }
  std::vector<std::string> pieces = {"null", "null", nitems, std::to_string(new_size), data};
  pieces.insert(pieces.end(), dims.begin(), dims.end());
  pieces.insert(pieces.end(), strides.begin(), strides.end());
  return build_array(e.type, pieces);
}

Value FunctionEmitter::constant_copy(const Expr& e) {
  Value source = expr(*e.kids[0]->kids[0]);  // the constant, C-contiguous (constant_array)
  const Type& t = e.type;
  std::string ety = llvm_element_type(t.dtype());
  std::int64_t count = 1;
  for (std::int64_t d : e.shape) count *= d;
  std::string arr = "[" + std::to_string(count) + " x " + ety + "]";
  std::string local = t.dtype().is_record() ? alloca_aligned(arr, 16) : alloca(arr);
  std::string data = ins("getelementptr " + arr + ", " + arr + "* " + local + ", i64 0, i64 0");
  m_.declare("declare void @llvm.memcpy.p0i8.p0i8.i64(i8* nocapture, i8* nocapture readonly, i64, i1)");
  line("call void @llvm.memcpy.p0i8.p0i8.i64(i8* " + ins("bitcast " + ety + "* " + data + " to i8*") + ", i8* " +
       ins("bitcast " + ety + "* " + array_field(source, 4).v + " to i8*") + ", i64 " +
       std::to_string(count * item_size(t.dtype())) + ", i1 false)");
  return constant_shape_array(t, data, e.shape);
}

Value FunctionEmitter::array_ravel(const Expr& e) {
  Value a = expr(*e.kids[0]->kids[0]);
  const std::string size = array_field(a, 2).v, itemsize = std::to_string(item_size(a.t.dtype()));
  return build_array(e.type, {"null", "null", size, itemsize, array_field(a, 4).v, size, itemsize});
}

Value FunctionEmitter::reversed_axes(const Value& a, const Type& t) {
  if (a.t.ndim() <= 1) return a;
  const int nd = a.t.ndim();
  std::vector<std::string> pieces = {"null", "null", array_field(a, 2).v, array_field(a, 3).v, array_field(a, 4).v};
  for (int k = nd; k-- > 0;) pieces.push_back(array_field(a, 5, k).v);
  for (int k = nd; k-- > 0;) pieces.push_back(axis_stride(a, k));
  return build_array(t, pieces);
}

Value FunctionEmitter::array_transpose(const Expr& e) {
  // a.transpose(axes): the array is the callee's owner; np.transpose(a, axes): the first argument.
  const std::size_t first = e.target == "np_transpose" ? 2 : 1;
  Value a = expr(first == 2 ? *e.kids[1] : *e.kids[0]->kids[0]);
  if (e.formals.empty()) return reversed_axes(a, e.type);  // a.transpose() and a.transpose(None): a.T
  const Type i64 = Type::integer(64, true);
  std::vector<std::string> axes;
  if (e.formals.size() == 1 && e.formals[0].is_tuple()) {
    Value tuple = expr(*e.kids[first]);
    for (std::size_t k = 0; k < e.formals[0].elements().size(); ++k) axes.push_back(convert(extract(tuple, k), i64).v);
  } else {
    for (std::size_t k = first; k < e.kids.size(); ++k) axes.push_back(convert(expr(*e.kids[k]), i64).v);
  }
  // permute_arrays: repeated values (as given, before negative ones are wrapped) and axes outside
  // [-ndim, ndim) raise; then shape and strides are indexed by the axes, a negative one from the end.
  const int nd = a.t.ndim();
  const std::string n = std::to_string(nd);
  std::string repeated = "false", outside = "false";
  for (std::size_t k = 0; k < axes.size(); ++k) {
    for (std::size_t l = k + 1; l < axes.size(); ++l)
      repeated = ins("or i1 " + repeated + ", " + ins("icmp eq i64 " + axes[k] + ", " + axes[l]));
    outside = ins("or i1 " + outside + ", " + ins("icmp sge i64 " + axes[k] + ", " + n));
    outside = ins("or i1 " + outside + ", " + ins("icmp slt i64 " + axes[k] + ", -" + n));
  }
  raise_when(repeated, "builtins.ValueError", "repeated axis in transpose", e.loc);
  raise_when(outside, "builtins.ValueError", "axis is out of bounds for array of given dimension", e.loc);
  std::vector<std::string> dims, strides;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    std::string axis = ins("select i1 " + ins("icmp slt i64 " + axes[k] + ", 0") + ", i64 " +
                           ins("add i64 " + axes[k] + ", " + n) + ", i64 " + axes[k]);
    std::string dim = array_field(a, 5, 0).v, stride = axis_stride(a, 0);
    for (int j = 1; j < nd; ++j) {
      std::string hit = ins("icmp eq i64 " + axis + ", " + std::to_string(j));
      dim = ins("select i1 " + hit + ", i64 " + array_field(a, 5, j).v + ", i64 " + dim);
      stride = ins("select i1 " + hit + ", i64 " + axis_stride(a, j) + ", i64 " + stride);
    }
    dims.push_back(dim);
    strides.push_back(stride);
  }
  std::vector<std::string> pieces = {"null", "null", array_field(a, 2).v, array_field(a, 3).v, array_field(a, 4).v};
  pieces.insert(pieces.end(), dims.begin(), dims.end());
  pieces.insert(pieces.end(), strides.begin(), strides.end());
  return build_array(e.type, pieces);
}

}  // namespace cubridge::compiler
