// Internal: NVVM IR (LLVM 7 text, typed pointers) from a typed module. Every function body becomes an
// internal "core" with the Numba calling convention (i32 status; first parameter the return slot;
// aggregates flattened); the exported entry is that core under the Numba ABI, or a C-ABI wrapper.
// Locals live in allocas (libNVVM's optimiser promotes them), so control flow needs no phi bookkeeping.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <tuple>
#include <string>
#include <vector>

#include "compiler/typing/typer.hpp"
#include "compiler/typing/typing_rules.hpp"

namespace cubridge::compiler {

struct EmittedModule {
  std::string ir;
  std::string symbol;
  bool uses_libdevice = false;
  std::vector<RaiseSite> raise_sites;
  bool cooperative = false;
  std::vector<std::string> warnings;
};

EmittedModule emit_module(TypedModule& module, const CompileOptions& options);

/// The LLVM types of the Numba-ABI parameters of an array argument: meminfo, parent, nitems, itemsize,
/// data, shape[N], strides[N] (numba-cuda's array data model, flattened as its kernels take it).
std::vector<std::string> array_piece_types(const Type& array);

/// The LLVM type of a value of `t` in registers (bool is i1) and in memory/at ABI boundaries (bool is i8).
/// An array is its data model as one struct: {i8*, i8*, i64, i64, T*, [N x i64], [N x i64]}.
std::string llvm_value_type(const Type& t);
std::string llvm_data_type(const Type& t);
/// The LLVM type of one array element in memory: its data type, or [size x i8] for a record (whose
/// value is an i8* to its first byte: a reference into the array, as in Numba).
std::string llvm_element_type(const Type& dtype);
/// The inline-assembly constraint and LLVM type of a bf16/fp8 signature letter's register (emit_bf16.cpp):
/// f float, d double, 32-bit integers "r", 64-bit "l", every 8- and 16-bit value in an "h" i16.
std::pair<const char*, const char*> asm_register_of(char letter);
/// The bytes of one element of an array of `dtype` (bool: 1).
std::int64_t item_size(const Type& dtype);

struct Value {
  std::string v;  ///< an SSA name ("%t3") or a constant ("42", "0x3FF0000000000000")
  Type t;
};

class ModuleEmitter;

class FunctionEmitter {
 public:
  FunctionEmitter(ModuleEmitter& m, TypedFunction& fn, std::string& out) : m_(m), fn_(fn), out_(out) {}
  /// `kernel_entry`: the function is a Numba-ABI kernel emitted as its own entry (void; a raise's status
  /// recorded here with debug=True), as numba-cuda's kernels are.
  void emit_core(const std::string& symbol, bool exported, bool kernel_entry = false);
  /// The LLVM types of the exported function's parameters, as emit_core wrote them.
  const std::vector<std::string>& entry_params() const { return entry_params_; }

  // Instructions (emit_expr.cpp, emit_ops.cpp, emit_calls.cpp).
  // Names and entry-block allocas come from the function being written (the host, where a body is inlined).
  std::string tmp() { return host_ ? host_->tmp() : "%t" + std::to_string(next_tmp_++); }
  std::string label(const char* what) {
    return host_ ? host_->label(what) : std::string(what) + "." + std::to_string(next_label_++);
  }
  std::string ins(const std::string& text);  ///< emits "%tN = text", returns %tN
  void line(const std::string& text);        ///< emits one instruction without a result
  void start_block(const std::string& l);
  void br(const std::string& l);
  void cond_br(const std::string& c, const std::string& t, const std::string& f);
  bool terminated() const { return terminated_; }
  std::string alloca(const std::string& llvm_type);  ///< an entry-block alloca
  std::string alloca_aligned(const std::string& llvm_type, int align);  ///< one with an explicit alignment
  /// One named `name` (a quoted name starts with its '"'), with an explicit alignment.
  std::string alloca_named(const std::string& name, const std::string& llvm_type, int align);
  Value load(const std::string& ptr, const Type& t);
  Value to_data(const Value& v);
  Value from_data(const std::string& v, const Type& t);

  Value expr(const Expr& e);
  Value convert(const Value& v, const Type& to);
  std::string truth(const Value& v);
  Value constant(const Constant& c);
  /// `operator_form`: the expression a <op> b (numba's operator.truediv), not an in-place a <op>= b.
  /// A call of a compiled module function (e.callee_index) with `args` (converted to its parameters).
  Value user_function_call(const Expr& e, const std::vector<Value>& args);
  /// A call of the module function `index` (TypedModule::functions), its value converted to `result`.
  Value function_call(int index, const std::vector<Value>& args, const Type& result);
  /// The same call with the callee's body written here (emit_inline.cpp): numba-cuda's inline='always'.
  Value inline_call(int index, const std::vector<Value>& args, const Type& result);
  /// After a call of `callee` (or its inlined body): a raised status (`status()` gives it, read only where
  /// the callee can raise) is returned from here; else the result in `slot` converted to `result`.
  Value finish_call(const TypedFunction& callee, const std::function<std::string()>& status, const std::string& slot,
                    const Type& result);
  /// target op= value's new value from the current one: the operator, or numba-cuda's cpow for a complex
  /// **= (the typer marks the target as its call: typer's complex_power).
  Value aug_operation(const Stmt& s, const Expr& target, const Value& cur, const Value& rhs);
  Value binary(BinOp op, const Value& a, const Value& b, const std::vector<Type>& formals, const Type& result,
               bool operator_form = false);
  std::string compare(CmpOp op, const Value& a, const Value& b, const Type& formal);
  Value call(const Expr& e);
  Value math(const Expr& e, const std::vector<Value>& args);
  /// math.<f> on `args` converted to `formals` (two-argument functions), giving `result`.
  Value math(const std::string& f, const std::vector<Value>& args, const std::vector<Type>& formals, const Type& result);
  /// A NumPy ufunc on scalars (emit_numpy.cpp), its loop's types in e.formals.
  Value numpy_ufunc(const Expr& e, const std::vector<Value>& args);
  /// One ufunc loop on scalars: `f` with the loop's input types `formals` (more are ignored), result R.
  /// np.divide's complex loop (numba's np_complex_div_impl), which never raises.
  Value complex_divide(const Value& x, const Value& y);
  Value ufunc_scalar(std::string_view f, const std::vector<Type>& formals, const Type& R, const std::vector<Value>& args);
  /// np.<ufunc>(inputs..., out) on arrays: the loop over out's elements, inputs broadcast from size-1 axes.
  Value numpy_ufunc_on_arrays(const Expr& e, const std::vector<Value>& args);
  /// `v.view(T)` (emit_numpy.cpp): a bit cast to a type of the same width.
  Value scalar_view(const Expr& e);
  /// a.reshape(shape) and a.view(dtype) (emit_array_methods.cpp): views of a's data, as numba-cuda lowers
  /// them (the new shape normalised and checked, the dtype changed along the contiguous axis).
  Value array_reshape(const Expr& e);
  Value array_view(const Expr& e);
  /// a.transpose(...) (typer: array_transpose): a view of a's data with its axes permuted.
  Value array_transpose(const Expr& e);
  /// c.copy() of a captured NumPy array (typer: array_method): a local array filled from the constant.
  Value constant_copy(const Expr& e);
  /// a.ravel() of a C-contiguous array (typer: array_method): a 1-d view of its a.size elements.
  Value array_ravel(const Expr& e);
  /// a.T: a view with the axes in reverse order, of type `t`.
  Value reversed_axes(const Value& a, const Type& t);
  /// Raises `exception` with `message` at `loc` when `condition` (an i1) holds; goes on otherwise.
  void raise_when(const std::string& condition, const std::string& exception, const std::string& message, SourceLoc loc);
  /// numba.cuda.libdevice.<name>(...) (emit_libdevice.cpp).
  Value libdevice_call(const Expr& e, const std::vector<Value>& args);
  /// A call of an external device function (cuda.declare_device; emit_external_calls.cpp).
  Value external_call(const Expr& e, const std::vector<Value>& args);
  // C pointers (emit_pointers.cpp).
  std::string pointer_element(const Expr& e);
  Value pointer_load(const Expr& e);
  void pointer_store(const Expr& target, const Value& v);
  void pointer_aug_assign(const Stmt& s);
  Value pointer_array(const Expr& e);  ///< carray / farray: its dtype argument is a type, never evaluated
  /// numba.cuda.fp16.<name>(...) (emit_fp16.cpp).
  Value fp16_call(const Expr& e, const std::vector<Value>& args);
  /// The fp16 function `name` (fp16_functions.hpp) on `args` (converted to float16), as inline PTX.
  Value fp16_instruction(std::string_view name, const std::vector<Value>& args);
  /// A cast between float16 and an integer type, as numba-cuda writes it (cvt.rni / cvt.rn inline PTX).
  Value fp16_int_convert(const Value& v, const Type& to);
  /// numba-cuda's bfloat16 (emit_bf16.cpp): a cuda_bf16 binding by name (e.target), the binding `name` on
  /// `args` (converted to its parameters), a cast to or from a bfloat16, and a bfloat16's truth.
  Value bf16_call(const Expr& e, const std::vector<Value>& args);
  /// A vector type's constructor (emit_vectors.cpp): the arguments' components, in order.
  Value vector_call(const Expr& e, const std::vector<Value>& args);
  Value bf16_apply(std::string_view name, const std::vector<Value>& args);
  /// numba-cuda's fp8 (emit_fp8.cpp): a cvt_* intrinsic (e.target), casts to and from an fp8, its truth.
  Value fp8_call(const Expr& e, const std::vector<Value>& args);
  Value fp8_convert(const Value& v, const Type& to);
  std::string fp8_truth(const Value& v);
  Value bf16_convert(const Value& v, const Type& to);
  /// NumPy's datetime64/timedelta64 (emit_datetime.cpp): an operator whose operands the typer admitted
  /// (datetime_rules.hpp) giving `result`, a comparison, a count scaled to `unit`, and the i1 "neither is NaT".
  Value datetime_binary(BinOp op, const Value& a, const Value& b, const Type& result);
  std::string datetime_compare(CmpOp op, const Value& a, const Value& b);
  std::string datetime_scaled(const Value& v, std::uint8_t unit);
  std::string datetime_not_nat(const Value& a, const Value* b = nullptr);
  std::string bf16_truth(const Value& v);
  Value builtin(const Expr& e, const std::vector<Value>& args);
  Value complex_op(BinOp op, const Value& a, const Value& b);
  Value make_aggregate(const Type& t, const std::vector<Value>& parts);
  // Optional values (emit_optional.cpp).
  Value to_optional(const Value& v, const Type& to);  ///< T, none or Optional(U) into Optional `to`
  std::string optional_valid(const Value& v);          ///< i1: the Optional holds a value
  Value unwrap(const Expr& e);                          ///< the value of an Optional where a T is needed
  Value extract(const Value& agg, std::size_t i);
  Value float_const(double v, const Type& t);
  Value int_const(std::int64_t v, const Type& t);
  std::string libdevice(const std::string& base, const Type& t, int nargs);  ///< "@__nv_sinf"
  std::string intrinsic(const std::string& base, const Type& t, int nargs);  ///< "@llvm.floor.f32"
  Value round_ndigits(const Value& x, const Value& nd, const Type& result);

  // Arrays (emit_arrays.cpp).
  /// An array value from its flattened pieces (SSA names or constants, in array_piece_types order).
  Value build_array(const Type& t, const std::vector<std::string>& pieces);
  /// Field 0..6 of the data model; shape (5) and strides (6) take the axis.
  Value array_field(const Value& a, int field, int axis = -1);
  /// The address of the element (all axes indexed) or of the view's first element (fewer axes), with
  /// negative signed indices wrapped as Numba does (index + shape).
  std::string element_pointer(const Value& a, const Expr& index, const std::vector<Type>& index_types);
  /// What indexing with integers and slices gives: the first element's address and the view's axes
  /// (sliced axes, then the axes not indexed), as i64 SSA names or constants.
  struct Indexed {
    std::string ptr;
    std::vector<std::string> shape, strides;
  };
  Indexed index_array(const Value& a, const Expr& index, const std::vector<Type>& index_types);
  /// One sliced axis of length `len`: the first index, the count and the step (i64 names or constants).
  struct SliceAxis {
    std::string start, length, step;
  };
  SliceAxis slice_axis(const std::string& len, const Expr& slice);
  /// The byte stride of `axis`: the item size on a C/F array's contiguous axis, else the stored stride.
  std::string axis_stride(const Value& a, int axis);
  Value array_subscript(const Expr& e);
  /// An array of type `v` over what indexing gave (its first element and axes).
  Value view(const Type& v, const Indexed& at);
  void array_store(const Expr& target, const Value& v);
  /// A store to a view (target.type is an array): a number, a tuple or a broadcast array (emit_slice_store.cpp).
  void slice_store(const Expr& target, const Value& value);
  /// Runs `body` once per index of `shape` (i64 names), in C order: the last axis fastest.
  void loop_nest(const std::vector<std::string>& shape, const std::function<void(const std::vector<std::string>&)>& body);
  /// The address of element `index` of the strided block at `base` (a dtype*); strides in bytes.
  std::string strided_pointer(const std::string& base, const Type& dtype, const std::vector<std::string>& index,
                              const std::vector<std::string>& strides);
  /// The [start, end) addresses (i64) of the bytes a strided block touches.
  std::pair<std::string, std::string> memory_extent(const std::string& base, const Type& dtype,
                                                    const std::vector<std::string>& shape,
                                                    const std::vector<std::string>& strides);
  /// Ends the thread with a raised exception's status when `condition` (an i1) holds.
  /// Ends the thread raising `exception` ("builtins.IndexError") with the message `message` when `condition`
  /// (an i1) holds: a registered raise site, so a debug=True kernel's launcher re-raises it by name.
  void raise_if(const std::string& condition, const std::string& exception, const std::string& message,
                SourceLoc loc);

  // Homogeneous tuples indexed at run time (emit_tuple_index.cpp).
  /// The tuple stored in an entry-block slot, so that its items can be addressed by position.
  std::string tuple_in_memory(const Value& tuple);
  /// Item `index` (an i64 known to be in range) of a tuple of `n` items of type `item` held at `held`.
  Value tuple_item_at(const std::string& held, const Type& item, std::size_t n, const std::string& index);
  /// t[i] with a variable i: negative indices wrap, an index out of range raises IndexError (numba's
  /// getitem of a UniTuple).
  Value tuple_subscript(const Expr& e);
  void array_aug_assign(const Stmt& s);
  Value array_attribute(const Expr& e);
  /// A C-ordered array over `data` (a generic T*) with a constant shape.
  Value constant_shape_array(const Type& t, const std::string& data, const std::vector<std::int64_t>& shape);
  /// A NumPy array bound outside the source (Expr::constant_array): its bytes as an addrspace(4)
  /// global (emitted once per module), viewed as a C-ordered array.
  Value constant_array(const Expr& e);
  /// A GPU array bound outside the source (Expr::device_array): its address, shape and strides as constants.
  Value device_array(const DeviceArrayRef& a);

  /// A bytes/str constant as the fixed-width string (e.type) it is stored into: its bytes or code points,
  /// cut at the width, the rest zeros (emit_char_seq.cpp).
  Value char_seq_constant(const Expr& e);

  // Records (emit_records.cpp): r.x, r['x'] read and stored through the record's address.
  /// The address of field `field` of `record` as a pointer to the field's data type.
  std::string field_pointer(const Value& record, int field);
  /// A field read (e.field set by the typer); an array field gives a C-ordered view into the record.
  Value record_field(const Expr& e);
  /// target.field of the record in target.kids[0] = v (converted to the field's type).
  void record_store(const Expr& target, const Value& v);
  void record_aug_assign(const Stmt& s);
  /// Copies the bytes of record `from` to the address `to` (a[i] = r).
  void copy_record(const std::string& to, const Value& from);
  void copy_bytes(const std::string& to, const std::string& from, std::int64_t n);

  // CUDA intrinsics (emit_cuda.cpp).
  Value intrinsic(const Expr& e);
  Value cuda_attribute(const Expr& e);
  Value sreg(const std::string& reg);  ///< llvm.nvvm.read.ptx.sreg.<reg>, an i32
  Value cuda_atomic(const Expr& e);
  /// cuda.ldcg(a, i) / cuda.stcg(a, i, v) and the other cache hints (emit_cache_hints.cpp).
  Value cache_hint(const Expr& e);
  Value shuffle(const Expr& e, const Value& mask, const Value& value, const Value& lane);

  // print() and raise (emit_print_raise.cpp), as numba-cuda lowers them.
  /// print(...): one vprintf call with numba-cuda's format string and argument buffer.
  Value print(const Expr& e);
  /// Returns the status of a new raise site (RaiseSite) from this function at `loc`; with the C ABI and
  /// debug=True it traps first (that ABI has no status channel).
  void raise_exception(const std::string& exception, const std::vector<std::string>& args, SourceLoc loc);

  // Cooperative groups (emit_cooperative.cpp).
  Value this_grid();
  Value grid_sync(const Expr& e);

 private:
  ModuleEmitter& m_;
  TypedFunction& fn_;
  std::string& out_;
  std::string body_;
  std::string allocas_;
  int next_tmp_ = 0;
  int next_label_ = 0;
  bool terminated_ = false;
  struct Loop {
    std::string cont, brk;
  };
  std::vector<Loop> loops_;
  std::vector<std::string> slot_ptr_;
  std::map<std::string, int> named_allocas_;  ///< alloca_named: how many allocas took each name
  /// Inlining (emit_inline.cpp): the function this body is written into, the block a return jumps to, and
  /// the slots its status and result are stored in (empty: this emitter writes a function of its own).
  FunctionEmitter* host_ = nullptr;
  std::string inline_exit_, inline_status_, inline_result_;
  int subprogram_ = -1;  ///< metadata id of this function's DISubprogram (-1: no debug info)
  std::string dbg_;      ///< ", !dbg !N" appended to each instruction (empty without debug info)
  int current_line_ = 0; ///< the source line being emitted (debug info)
  bool kernel_entry_ = false;
  std::string status_slot_;  ///< kernel entry with debug=True: the raise status the exit block records
  std::vector<std::string> entry_params_;
  /// Returns `status` from the function: ret i32 from a core; from a kernel entry ret void (0, or no debug)
  /// or the jump to the block recording the raise.
  void return_status(const std::string& status);
  std::map<int, int> variables_;  ///< local slot -> its DILocalVariable (debug=True)
  void set_location(SourceLoc loc);
  /// debug=True: describes the variable in `slot` after `stored` was stored there (emit_debug_info.cpp).
  void describe_variable(int slot, const Value& stored);
  void print_item(const Expr& arg, std::vector<std::string>& formats, std::vector<Value>& values);
  void print_value(const Value& v, std::vector<std::string>& formats, std::vector<Value>& values);

  void statements(const std::vector<StmtPtr>& body);
  void statement(const Stmt& s);
  void assign(const Expr& target, const Value& v);
  void store_local(int slot, const Value& v);
  void ret_value(const Value& v);

 public:
  void raise_status(int code);

 private:
  // for loops (emit_iteration.cpp): one iterator per iterable, nested for enumerate() and zip().
  struct Iterator;
  void for_loop(const Stmt& s);
  Iterator start_iterator(const Expr& iterable);
  std::string iterator_has_item(Iterator& it);
  Value iterator_item(Iterator& it);
  void iterator_advance(Iterator& it);
};

class ModuleEmitter {
 public:
  ModuleEmitter(TypedModule& m, const CompileOptions& o) : module(m), options(o) {}
  TypedModule& module;
  const CompileOptions& options;
  std::set<std::string> declarations;  ///< "declare ..." lines
  std::set<std::string> helpers;       ///< names of emitted helper functions
  std::string helper_text;
  std::string globals;                 ///< shared-memory (addrspace(3)) and constant (addrspace(4)) arrays
  int next_global = 0;
  std::vector<int> pending;            ///< function indices still to emit
  std::vector<std::string> symbols;    ///< per function index: its core symbol ("" until requested)
  bool uses_libdevice = false;

  void declare(const std::string& decl) { declarations.insert(decl); }

  // Debug metadata (lineinfo or debug): a compile unit, one DISubprogram per function, DILocations.
  std::string metadata;
  int next_metadata = 2;
  int compile_unit = -1;
  std::map<std::tuple<int, int, int>, int> locations;
  std::map<std::string, int> files;
  /// -1 when neither lineinfo nor debug is on. With debug=True and `fn`, its type lists fn's types.
  int subprogram(const FunctionDef& def, const std::string& linkage_name, const TypedFunction* fn = nullptr);
  /// debug=True's type descriptions (emit_debug_info.cpp): one node per type, by name.
  std::map<std::string, int> debug_types;
  int debug_type(const Type& t);
  int subroutine_type(const TypedFunction& fn);
  int location(SourceLoc loc, int scope);
  /// The core symbol of function `index`, queued for emission on first request.
  const std::string& function_symbol(int index);
  /// Ensures the named helper (integer power, Python float floor division, complex division, ...) is
  /// defined; returns its "@name".
  std::string helper(const std::string& name, const Type& t);

  /// A NUL-terminated string in constant memory (one global per text), as a generic i8* constant expression.
  std::string string_constant(const std::string& text);
  std::map<std::string, std::string> strings;  ///< text -> its constant expression
  /// Where the module raises; a site's status is its index + 1.
  std::vector<RaiseSite> raise_sites;
  int raise_site(RaiseSite site);
  /// The instructions a debug=True kernel runs after its body returned `status`: the first raising
  /// thread stores the status, its threadIdx and blockIdx in numba-cuda's globals "<kernel>__errcode__",
  /// "<kernel>__tid{x,y,z}__" and "<kernel>__ctaid{x,y,z}__" (defined here). Ends in a fresh block.
  std::string record_raise(const std::string& kernel, const std::string& dbg);
  bool cooperative = false;  ///< cuda.cg.this_grid() or a use_cooperative external function was emitted
  /// What numba-cuda warns about (a NumbaWarning) while lowering this module: one text per site, in order.
  std::vector<std::string> warnings;
  /// The function that waits at the grid barrier; returns its "@name".
  std::string grid_sync_function();
};

}  // namespace cubridge::compiler
