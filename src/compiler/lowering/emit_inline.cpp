// Internal: numba-cuda's inline='always' (see emitter.hpp). numba-cuda inlines such a function at its own IR
// level, before LLVM: the caller's IR holds the callee's body and no call of it, with no alwaysinline anywhere.
// Here the callee's statements are emitted into the caller by a FunctionEmitter whose names and allocas come
// from the caller (the host): its parameters are stored in slots of their own, a return stores the value and
// the status in the host's slots and jumps past the body, and the host then goes on as after a call (a
// raised status is returned from the host). Not done with debug or line info (each inlined instruction would
// need its inlinedAt location) nor for recursive functions: those stay calls of an alwaysinline function.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

Value FunctionEmitter::inline_call(int index, const std::vector<Value>& args, const Type& result) {
  TypedFunction& callee = *m_.module.functions[static_cast<std::size_t>(index)];
  std::string rty = callee.return_type.is_none() ? "i8" : llvm_data_type(callee.return_type);
  FunctionEmitter inner(m_, callee, out_);
  inner.host_ = this;
  inner.inline_result_ = alloca(rty);
  inner.inline_status_ = alloca("i32");
  inner.inline_exit_ = label("inlined");
  for (std::size_t i = 0; i < callee.local_names.size(); ++i) {
    const Type& t = callee.local_types[i];
    inner.slot_ptr_.push_back(t.is_unknown() || t.is_none() ? "" : alloca(llvm_value_type(t)));
  }
  for (std::size_t i = 0; i < args.size() && i < callee.arg_types.size(); ++i)
    if (!inner.slot_ptr_[i].empty()) inner.store_local(static_cast<int>(i), convert(args[i], callee.arg_types[i]));
  inner.statements(callee.body);
  if (!inner.terminated_) inner.return_status("0");
  body_ += inner.body_;
  terminated_ = true;  // the inlined body ended with its jump to the exit
  start_block(inner.inline_exit_);
  return finish_call(callee, [&] { return ins("load i32, i32* " + inner.inline_status_); }, inner.inline_result_, result);
}

}  // namespace cubridge::compiler
