// Internal: arrays in NVVM IR (see emitter.hpp). An array value is numba-cuda's data model as one
// struct {meminfo, parent, nitems, itemsize, data, shape[N], strides[N]}; strides are in bytes, and the
// contiguous axis of a C (last) or F (first) array uses the item size, as Numba's layout promises.
// Indexing with integers and slices (a[i, 1:, ::2]) makes an element address or a view.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

std::vector<std::string> array_piece_types(const Type& a) {
  std::vector<std::string> p = {"i8*", "i8*", "i64", "i64", llvm_element_type(a.dtype()) + "*"};
  for (int i = 0; i < 2 * a.ndim(); ++i) p.push_back("i64");
  return p;
}

std::int64_t item_size(const Type& dtype) { return dtype.storage_size(); }

Value FunctionEmitter::build_array(const Type& t, const std::vector<std::string>& pieces) {
  std::string ty = llvm_value_type(t);
  std::vector<std::string> types = array_piece_types(t);
  std::string agg = "undef";
  auto n = static_cast<std::size_t>(t.ndim());
  for (std::size_t i = 0; i < 5; ++i)
    agg = ins("insertvalue " + ty + " " + agg + ", " + types[i] + " " + pieces[i] + ", " + std::to_string(i));
  for (std::size_t i = 0; i < 2 * n; ++i)
    agg = ins("insertvalue " + ty + " " + agg + ", i64 " + pieces[5 + i] + ", " + std::to_string(i < n ? 5 : 6) + ", " +
              std::to_string(i % n));
  return {agg, t};
}

Value FunctionEmitter::array_field(const Value& a, int field, int axis) {
  std::string ty = llvm_value_type(a.t);
  std::string where = std::to_string(field) + (axis >= 0 ? ", " + std::to_string(axis) : "");
  Type t = field == 2 || field == 3 || field >= 5 ? Type::integer(64, true) : Type::none();
  return {ins("extractvalue " + ty + " " + a.v + ", " + where), t};
}

std::string FunctionEmitter::axis_stride(const Value& a, int axis) {
  const Type& t = a.t;
  bool contiguous = (t.layout() == 'C' && axis == t.ndim() - 1) || (t.layout() == 'F' && axis == 0);
  return contiguous ? std::to_string(item_size(t.dtype())) : array_field(a, 6, axis).v;
}

FunctionEmitter::SliceAxis FunctionEmitter::slice_axis(const std::string& len, const Expr& slice) {
  // Python's PySlice_AdjustIndices: negative bounds count from the end, then clamp to [0, len] going up
  // or [-1, len - 1] going down; omitted bounds are the ends in the step's direction. A step of 0 known
  // only at run time gives an empty view (the typer rejects a constant 0), as range() with step 0 runs
  // no iterations: kernels have no ValueError to raise.
  const Type i64 = Type::integer(64, true);
  auto bound = [&](std::size_t k) -> std::string {
    if (k >= slice.kids.size() || slice.formals[k].is_none()) return "";
    return convert(expr(*slice.kids[k]), i64).v;
  };
  std::string start = bound(0), stop = bound(1), step = bound(2);
  SliceAxis r;
  r.step = step.empty() ? "1" : step;
  std::string neg = step.empty() ? "false" : ins("icmp slt i64 " + step + ", 0");
  std::string last = ins("sub i64 " + len + ", 1");
  auto pick = [&](const std::string& c, const std::string& a, const std::string& b) {
    return ins("select i1 " + c + ", i64 " + a + ", i64 " + b);
  };
  auto clamp = [&](const std::string& v, const std::string& omitted) {
    if (v.empty()) return omitted;
    std::string below = ins("icmp slt i64 " + v + ", 0");
    std::string x = pick(below, ins("add i64 " + v + ", " + len), v);
    std::string under = ins("icmp slt i64 " + x + ", 0");
    std::string over = ins("icmp sge i64 " + x + ", " + len);
    x = pick(under, pick(neg, "-1", "0"), x);
    return pick(over, pick(neg, last, len), x);
  };
  r.start = clamp(start, pick(neg, last, "0"));
  std::string end = clamp(stop, pick(neg, "-1", len));
  // Count: ceil(|end - start| / |step|) in the step's direction, 0 when the range is empty.
  std::string span = pick(neg, ins("sub i64 " + r.start + ", " + end), ins("sub i64 " + end + ", " + r.start));
  std::string mag = step.empty() ? "1" : pick(neg, ins("sub i64 0, " + step), step);
  std::string zero_step = step.empty() ? "false" : ins("icmp eq i64 " + step + ", 0");
  std::string divisor = pick(zero_step, "1", mag);
  std::string count = ins("add i64 " + ins("sdiv i64 " + ins("sub i64 " + span + ", 1") + ", " + divisor) + ", 1");
  std::string empty = ins("or i1 " + zero_step + ", " + ins("icmp sle i64 " + span + ", 0"));
  r.length = pick(empty, "0", count);
  return r;
}

FunctionEmitter::Indexed FunctionEmitter::index_array(const Value& a, const Expr& index,
                                                      const std::vector<Type>& index_types) {
  const Type& t = a.t;
  std::vector<const Expr*> parts;
  if (index.kind == ExprKind::Tuple) {
    for (const auto& k : index.kids) parts.push_back(k.get());
  } else {
    parts.push_back(&index);
  }
  const Type i64 = Type::integer(64, true);
  Indexed r;
  std::string offset = "0";
  auto advance = [&](const std::string& by, const std::string& stride) {
    std::string term = ins("mul i64 " + by + ", " + stride);
    offset = offset == "0" ? term : ins("add i64 " + offset + ", " + term);
  };
  // A tuple of integers held in a variable (typer: array_indices) gives one index per item.
  std::optional<Value> packed;
  if (index.kind != ExprKind::Tuple && index.type.is_tuple()) packed = expr(index);
  const std::size_t count = packed ? index_types.size() : parts.size();
  for (std::size_t k = 0; k < count; ++k) {
    int axis = static_cast<int>(k);
    std::string stride = axis_stride(a, axis);
    if (!packed && parts[k]->kind == ExprKind::Slice) {
      SliceAxis s = slice_axis(array_field(a, 5, axis).v, *parts[k]);
      advance(s.start, stride);
      r.shape.push_back(s.length);
      r.strides.push_back(s.step == "1" ? stride : ins("mul i64 " + stride + ", " + s.step));
      continue;
    }
    Value raw = packed ? extract(*packed, k) : expr(*parts[k]);
    Value i = convert(raw, index_types[k].is_signed() ? i64 : Type::integer(64, false));
    std::string idx = i.v;
    if (index_types[k].is_signed()) {  // Numba's wraparound: a negative index counts from the end
      Value dim = array_field(a, 5, axis);
      std::string neg = ins("icmp slt i64 " + idx + ", 0");
      std::string wrapped = ins("add i64 " + idx + ", " + dim.v);
      idx = ins("select i1 " + neg + ", i64 " + wrapped + ", i64 " + idx);
    }
    advance(idx, stride);
  }
  for (int k = static_cast<int>(count); k < t.ndim(); ++k) {  // the axes not indexed stay whole
    r.shape.push_back(array_field(a, 5, k).v);
    r.strides.push_back(axis_stride(a, k));
  }
  std::string ety = llvm_element_type(t.dtype());
  Value data = array_field(a, 4);
  std::string bytes = ins("bitcast " + ety + "* " + data.v + " to i8*");
  std::string at = ins("getelementptr i8, i8* " + bytes + ", i64 " + offset);
  r.ptr = ins("bitcast i8* " + at + " to " + ety + "*");
  return r;
}

std::string FunctionEmitter::element_pointer(const Value& a, const Expr& index, const std::vector<Type>& index_types) {
  return index_array(a, index, index_types).ptr;
}

Value FunctionEmitter::array_subscript(const Expr& e) {
  Value a = expr(*e.kids[0]);
  Indexed at = index_array(a, *e.kids[1], e.formals);
  if (e.type.is_record()) return {ins("bitcast " + llvm_element_type(e.type) + "* " + at.ptr + " to i8*"), e.type};
  if (!e.type.is_array()) {
    std::string ety = llvm_data_type(e.type);
    std::string raw = ins("load " + ety + ", " + ety + "* " + at.ptr);
    return from_data(raw, e.type);
  }
  return view(e.type, at);
}

Value FunctionEmitter::view(const Type& v, const Indexed& at) {
  // The sliced and the remaining axes, starting at the indexed element.
  std::vector<std::string> pieces = {"null", "null", "", std::to_string(item_size(v.dtype())), at.ptr};
  std::string nitems = "1";
  for (const std::string& d : at.shape) nitems = nitems == "1" ? d : ins("mul i64 " + nitems + ", " + d);
  pieces[2] = nitems;
  pieces.insert(pieces.end(), at.shape.begin(), at.shape.end());
  pieces.insert(pieces.end(), at.strides.begin(), at.strides.end());
  return build_array(v, pieces);
}

void FunctionEmitter::array_store(const Expr& target, const Value& v) {
  if (target.type.is_array()) {
    slice_store(target, v);
    return;
  }
  Value a = expr(*target.kids[0]);
  std::string ptr = element_pointer(a, *target.kids[1], target.formals);
  const Type& d = a.t.dtype();
  if (d.is_record()) return copy_record(ins("bitcast " + llvm_element_type(d) + "* " + ptr + " to i8*"), v);
  if (d.is_char_seq()) return line("store " + llvm_data_type(d) + " " + v.v + ", " + llvm_data_type(d) + "* " + ptr);
  Value c = to_data(convert(v, d));
  std::string ety = llvm_data_type(d);
  line("store " + ety + " " + c.v + ", " + ety + "* " + ptr);
}

void FunctionEmitter::array_aug_assign(const Stmt& s) {
  // a[i] op= x: the array and the index are evaluated once.
  const Expr& target = *s.targets[0];
  Value a = expr(*target.kids[0]);
  std::string ptr = element_pointer(a, *target.kids[1], target.formals);
  const Type& d = a.t.dtype();
  std::string ety = llvm_data_type(d);
  Value cur = from_data(ins("load " + ety + ", " + ety + "* " + ptr), d);
  Value rhs = expr(*s.value);
  Value c = to_data(convert(aug_operation(s, target, cur, rhs), d));
  line("store " + ety + " " + c.v + ", " + ety + "* " + ptr);
}

Value FunctionEmitter::array_attribute(const Expr& e) {
  Value a = expr(*e.kids[0]);
  const Type i64 = Type::integer(64, true);
  const std::string& n = e.name;
  if (n == "shape" || n == "strides") {
    std::vector<Value> parts;
    for (int k = 0; k < a.t.ndim(); ++k) parts.push_back(array_field(a, n == "shape" ? 5 : 6, k));
    return make_aggregate(e.type, parts);
  }
  if (n == "real" || n == "imag") {
    if (!a.t.dtype().is_complex()) return a;  // .real of a real array (typer: array_attribute)
    // A view of one component: the same shape and strides, items of the component's size.
    const Type& c = e.type.dtype();
    std::string cty = llvm_data_type(c), ety = llvm_element_type(a.t.dtype());
    std::string data = ins("bitcast " + ety + "* " + array_field(a, 4).v + " to " + cty + "*");
    if (n == "imag") data = ins("getelementptr " + cty + ", " + cty + "* " + data + ", i64 1");
    std::vector<std::string> pieces = {"null", "null", array_field(a, 2).v, std::to_string(item_size(c)), data};
    for (int k = 0; k < a.t.ndim(); ++k) pieces.push_back(array_field(a, 5, k).v);
    for (int k = 0; k < a.t.ndim(); ++k) pieces.push_back(axis_stride(a, k));
    return build_array(e.type, pieces);
  }
  if (n == "ctypes.data")  // a.ctypes.data (typer: attribute): the data address as numba's uintp
    return {ins("ptrtoint " + llvm_element_type(a.t.dtype()) + "* " + array_field(a, 4).v + " to i64"), e.type};
  if (n == "T") return reversed_axes(a, e.type);
  if (n == "ndim") return {std::to_string(a.t.ndim()), i64};
  if (n == "itemsize") return {std::to_string(item_size(a.t.dtype())), i64};
  Value size = array_field(a, 2);
  if (n == "nbytes") return {ins("mul i64 " + size.v + ", " + std::to_string(item_size(a.t.dtype()))), i64};
  return size;
}

Value FunctionEmitter::constant_shape_array(const Type& t, const std::string& data,
                                            const std::vector<std::int64_t>& shape) {
  std::int64_t isz = item_size(t.dtype()), count = 1;
  for (std::int64_t d : shape) count *= d;
  std::vector<std::string> pieces = {"null", "null", std::to_string(count), std::to_string(isz), data};
  std::vector<std::int64_t> strides(shape.size(), isz);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  for (std::int64_t d : shape) pieces.push_back(std::to_string(d));
  for (std::int64_t s : strides) pieces.push_back(std::to_string(s));
  return build_array(t, pieces);
}

Value FunctionEmitter::constant_array(const Expr& e) {
  const ConstantArray& a = *e.constant_array;
  // An item of a captured tuple is named "t[k]": "$" (valid in LLVM and PTX names, never in Python's) for "[".
  std::string symbol;
  for (char c : e.name)
    if (c != ']') symbol += c == '[' ? '$' : c;
  std::string g = "@__cb_const_" + symbol, ety = llvm_element_type(a.dtype);
  std::string bytes_ty = "[" + std::to_string(a.bytes.size()) + " x i8]";
  if (m_.helpers.insert(g).second) {
    static const char* hex = "0123456789ABCDEF";
    std::string text;
    text.reserve(a.bytes.size() * 3);
    for (unsigned char b : a.bytes) {
      text += '\\';
      text += hex[b >> 4];
      text += hex[b & 15];
    }
    m_.globals += g + " = internal addrspace(4) constant " + bytes_ty + " c\"" + text + "\", align 16\n";
  }
  std::string first = ins("getelementptr " + bytes_ty + ", " + bytes_ty + " addrspace(4)* " + g + ", i64 0, i64 0");
  std::string typed = ins("bitcast i8 addrspace(4)* " + first + " to " + ety + " addrspace(4)*");
  std::string data = ins("addrspacecast " + ety + " addrspace(4)* " + typed + " to " + ety + "*");
  return constant_shape_array(e.type, data, a.shape);
}

Value FunctionEmitter::device_array(const DeviceArrayRef& a) {
  std::string ety = llvm_element_type(a.type.dtype());
  std::string data = ins("inttoptr i64 " + std::to_string(a.address) + " to " + ety + "*");
  std::int64_t count = 1;
  for (std::int64_t d : a.shape) count *= d;
  std::vector<std::string> pieces = {"null", "null", std::to_string(count), std::to_string(item_size(a.type.dtype())),
                                     data};
  for (std::int64_t d : a.shape) pieces.push_back(std::to_string(d));
  for (std::int64_t s : a.strides) pieces.push_back(std::to_string(s));
  return build_array(a.type, pieces);
}

}  // namespace cubridge::compiler
