// Internal: slice stores in NVVM IR (see emitter.hpp), as numba lowers setitem on a view (fancy_setslice):
// the destination view is walked in C order (the last axis fastest); a number is converted once and
// stored everywhere; a tuple must have the view's length; an array is broadcast to the view's shape
// (leading axes added, axes of length 1 stretched, extra leading axes of length 1 dropped) and, when its
// memory may overlap the view's, copied to a scratch buffer (device malloc) first, so a[1:] = a[:-1]
// gives NumPy's result. A shape that does not broadcast raises ValueError, which in a kernel ends the
// thread before anything is stored (numba-cuda's behaviour for an exception outside debug mode).
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

namespace {
// numba's message (its generic target's raise_with_shape_context) for a source that does not fit the view.
constexpr const char* kSliceSizeMismatch = "cannot assign slice from input of different size";
}  // namespace

void FunctionEmitter::raise_if(const std::string& condition, const std::string& exception, const std::string& message,
                               SourceLoc loc) {
  std::string bad = label("store_raise"), ok = label("store_ok");
  cond_br(condition, bad, ok);
  start_block(bad);
  raise_exception(exception, {"s:" + message}, loc);
  start_block(ok);
}

void FunctionEmitter::loop_nest(const std::vector<std::string>& shape,
                                const std::function<void(const std::vector<std::string>&)>& body) {
  std::vector<std::string> index;
  auto level = [&](auto&& self, std::size_t axis) -> void {
    if (axis == shape.size()) {
      body(index);
      return;
    }
    std::string counter = alloca("i64");
    line("store i64 0, i64* " + counter);
    std::string head = label("nest"), inner = label("nestbody"), end = label("nestend");
    br(head);
    start_block(head);
    std::string i = ins("load i64, i64* " + counter);
    cond_br(ins("icmp slt i64 " + i + ", " + shape[axis]), inner, end);
    start_block(inner);
    index.push_back(i);
    self(self, axis + 1);
    index.pop_back();
    line("store i64 " + ins("add i64 " + i + ", 1") + ", i64* " + counter);
    br(head);
    start_block(end);
  };
  level(level, 0);
}

std::string FunctionEmitter::strided_pointer(const std::string& base, const Type& dtype,
                                             const std::vector<std::string>& index,
                                             const std::vector<std::string>& strides) {
  std::string ety = llvm_data_type(dtype);
  std::string offset = "0";
  for (std::size_t k = 0; k < index.size(); ++k) {
    if (strides[k] == "0") continue;
    std::string term = ins("mul i64 " + index[k] + ", " + strides[k]);
    offset = offset == "0" ? term : ins("add i64 " + offset + ", " + term);
  }
  if (offset == "0") return base;
  std::string bytes = ins("bitcast " + ety + "* " + base + " to i8*");
  std::string at = ins("getelementptr i8, i8* " + bytes + ", i64 " + offset);
  return ins("bitcast i8* " + at + " to " + ety + "*");
}

std::pair<std::string, std::string> FunctionEmitter::memory_extent(const std::string& base, const Type& dtype,
                                                                   const std::vector<std::string>& shape,
                                                                   const std::vector<std::string>& strides) {
  // [lowest, highest + itemsize) of the bytes the view touches; empty at its base when a length is 0.
  std::string lo = "0", hi = "0", empty = "false";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    std::string reach = ins("mul i64 " + strides[k] + ", " + ins("sub i64 " + shape[k] + ", 1"));
    std::string up = ins("icmp sge i64 " + reach + ", 0");
    hi = ins("select i1 " + up + ", i64 " + ins("add i64 " + hi + ", " + reach) + ", i64 " + hi);
    lo = ins("select i1 " + up + ", i64 " + lo + ", i64 " + ins("add i64 " + lo + ", " + reach));
    empty = ins("or i1 " + empty + ", " + ins("icmp eq i64 " + shape[k] + ", 0"));
  }
  hi = ins("add i64 " + hi + ", " + std::to_string(item_size(dtype)));
  std::string at = ins("ptrtoint " + llvm_data_type(dtype) + "* " + base + " to i64");
  std::string start = ins("add i64 " + at + ", " + ins("select i1 " + empty + ", i64 0, i64 " + lo));
  std::string end = ins("add i64 " + at + ", " + ins("select i1 " + empty + ", i64 0, i64 " + hi));
  return {start, end};
}

void FunctionEmitter::slice_store(const Expr& target, const Value& value) {
  const SourceLoc loc = target.loc;
  Value a = expr(*target.kids[0]);
  Indexed dest = index_array(a, *target.kids[1], target.formals);
  const Type& d = a.t.dtype();
  std::string dty = llvm_data_type(d);
  auto put = [&](const std::vector<std::string>& index, const Value& v) {
    Value c = to_data(convert(v, d));
    line("store " + dty + " " + c.v + ", " + dty + "* " + strided_pointer(dest.ptr, d, index, dest.strides));
  };
  if (value.t.is_scalar()) {
    Value c = convert(value, d);
    loop_nest(dest.shape, [&](const std::vector<std::string>& index) { put(index, c); });
    return;
  }
  if (value.t.is_tuple()) {
    // numba's Sequence source: its length must be the 1-d view's; items are read by position.
    const Type& item = value.t.elements()[0];
    std::size_t n = value.t.elements().size();
    raise_if(ins("icmp ne i64 " + dest.shape[0] + ", " + std::to_string(n)), "builtins.ValueError", kSliceSizeMismatch, loc);
    std::string held = tuple_in_memory(value);
    loop_nest(dest.shape, [&](const std::vector<std::string>& index) {
      put(index, tuple_item_at(held, item, n, index[0]));
    });
    return;
  }
  // An array: broadcast its shape to the view's (numba's _bc_adjust_dimension, _bc_adjust_shape_strides).
  const Type& s = value.t.dtype();
  std::string sty = llvm_data_type(s);
  int rank = static_cast<int>(dest.shape.size()), src_rank = value.t.ndim();
  std::vector<std::string> shape, strides;
  for (int k = 0; k < src_rank; ++k) {
    shape.push_back(array_field(value, 5, k).v);
    strides.push_back(axis_stride(value, k));
  }
  if (src_rank > rank) {
    std::string extra_not_one = "false";
    for (int k = 0; k < src_rank - rank; ++k)
      extra_not_one = ins("or i1 " + extra_not_one + ", " + ins("icmp ne i64 " + shape[static_cast<std::size_t>(k)] + ", 1"));
    raise_if(extra_not_one, "builtins.ValueError", kSliceSizeMismatch, loc);
    shape.erase(shape.begin(), shape.begin() + (src_rank - rank));
    strides.erase(strides.begin(), strides.begin() + (src_rank - rank));
  }
  shape.insert(shape.begin(), static_cast<std::size_t>(std::max(0, rank - src_rank)), "1");
  strides.insert(strides.begin(), static_cast<std::size_t>(std::max(0, rank - src_rank)), "0");
  std::string mismatch = "false";
  for (std::size_t k = 0; k < shape.size(); ++k) {
    std::string stretch = ins("and i1 " + ins("icmp ne i64 " + dest.shape[k] + ", " + shape[k]) + ", " +
                              ins("icmp eq i64 " + shape[k] + ", 1"));
    shape[k] = ins("select i1 " + stretch + ", i64 " + dest.shape[k] + ", i64 " + shape[k]);
    strides[k] = ins("select i1 " + stretch + ", i64 0, i64 " + strides[k]);
    mismatch = ins("or i1 " + mismatch + ", " + ins("icmp ne i64 " + shape[k] + ", " + dest.shape[k]));
  }
  raise_if(mismatch, "builtins.ValueError", kSliceSizeMismatch, loc);

  // Overlapping memory: read from a C-ordered copy, as numba's maybe_copy_source does.
  std::string src_data = array_field(value, 4).v;
  auto [src_lo, src_hi] = memory_extent(src_data, s, shape, strides);
  auto [dst_lo, dst_hi] = memory_extent(dest.ptr, d, dest.shape, dest.strides);
  std::string overlap = ins("and i1 " + ins("icmp ult i64 " + src_lo + ", " + dst_hi) + ", " +
                            ins("icmp ult i64 " + dst_lo + ", " + src_hi));
  std::vector<std::string> packed(shape.size());
  std::string count = "1";
  for (std::size_t k = shape.size(); k-- > 0;) {
    packed[k] = k + 1 == shape.size() ? std::to_string(item_size(s)) : ins("mul i64 " + packed[k + 1] + ", " + shape[k + 1]);
    count = ins("mul i64 " + count + ", " + shape[k]);
  }
  std::string source = alloca(sty + "*");
  line("store " + sty + "* " + src_data + ", " + sty + "** " + source);
  m_.declare("declare i8* @malloc(i64)");
  m_.declare("declare void @free(i8*)");
  std::string copy = label("store_copy"), go = label("store_go");
  cond_br(overlap, copy, go);
  start_block(copy);
  std::string raw = ins("call i8* @malloc(i64 " + ins("mul i64 " + count + ", " + std::to_string(item_size(s))) + ")");
  // numba raises MemoryError when its allocation fails
  raise_if(ins("icmp eq i8* " + raw + ", null"), "builtins.MemoryError",
           "cannot allocate the copy of an overlapping slice-assignment source (device malloc returned NULL)", loc);
  std::string scratch = ins("bitcast i8* " + raw + " to " + sty + "*");
  loop_nest(shape, [&](const std::vector<std::string>& index) {
    std::string from = strided_pointer(src_data, s, index, strides);
    std::string item = ins("load " + sty + ", " + sty + "* " + from);
    line("store " + sty + " " + item + ", " + sty + "* " + strided_pointer(scratch, s, index, packed));
  });
  line("store " + sty + "* " + scratch + ", " + sty + "** " + source);
  br(go);
  start_block(go);
  std::string base = ins("load " + sty + "*, " + sty + "** " + source);
  std::vector<std::string> read_strides(shape.size());
  for (std::size_t k = 0; k < shape.size(); ++k)
    read_strides[k] = ins("select i1 " + overlap + ", i64 " + packed[k] + ", i64 " + strides[k]);
  loop_nest(dest.shape, [&](const std::vector<std::string>& index) {
    std::string from = strided_pointer(base, s, index, read_strides);
    put(index, from_data(ins("load " + sty + ", " + sty + "* " + from), s));
  });
  std::string release = label("store_free"), done = label("store_done");
  cond_br(overlap, release, done);
  start_block(release);
  line("call void @free(i8* " + ins("bitcast " + sty + "* " + base + " to i8*") + ")");
  br(done);
  start_block(done);
}

}  // namespace cubridge::compiler
