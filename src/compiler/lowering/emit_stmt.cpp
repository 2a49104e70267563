// Internal: function bodies and statements (see emitter.hpp).
#include <cstring>

#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

std::string FunctionEmitter::ins(const std::string& text) {
  std::string t = tmp();
  body_ += "  " + t + " = " + text + dbg_ + "\n";
  return t;
}

void FunctionEmitter::line(const std::string& text) { body_ += "  " + text + dbg_ + "\n"; }

void FunctionEmitter::start_block(const std::string& l) {
  if (!terminated_) br(l);
  body_ += l + ":\n";
  terminated_ = false;
}

void FunctionEmitter::br(const std::string& l) {
  if (terminated_) return;
  body_ += "  br label %" + l + dbg_ + "\n";
  terminated_ = true;
}

void FunctionEmitter::cond_br(const std::string& c, const std::string& t, const std::string& f) {
  if (terminated_) return;
  body_ += "  br i1 " + c + ", label %" + t + ", label %" + f + dbg_ + "\n";
  terminated_ = true;
}

std::string FunctionEmitter::alloca(const std::string& ty) {
  if (host_) return host_->alloca(ty);
  std::string p = "%a" + std::to_string(next_tmp_++);
  allocas_ += "  " + p + " = alloca " + ty + "\n";
  return p;
}

std::string FunctionEmitter::alloca_aligned(const std::string& ty, int align) {
  if (host_) return host_->alloca_aligned(ty, align);
  std::string p = "%a" + std::to_string(next_tmp_++);
  allocas_ += "  " + p + " = alloca " + ty + ", align " + std::to_string(align) + "\n";
  return p;
}

std::string FunctionEmitter::alloca_named(const std::string& name, const std::string& ty, int align) {
  if (host_) return host_->alloca_named(name, ty, align);
  // LLVM names are unique per function: the first keeps `name`, later ones take a suffix.
  int n = named_allocas_[name]++;
  std::string p = "%" + name + (n ? "." + std::to_string(n) : "") + (name.starts_with("\"") ? "\"" : "");
  allocas_ += "  " + p + " = alloca " + ty + ", align " + std::to_string(align) + "\n";
  return p;
}

Value FunctionEmitter::load(const std::string& ptr, const Type& t) {
  std::string ty = llvm_value_type(t);
  return {ins("load " + ty + ", " + ty + "* " + ptr), t};
}

namespace {
// Flattened Numba-ABI parameters of one argument type.
void flatten_types(const Type& t, std::vector<Type>& out) {
  if (t.is_complex()) {
    out.push_back(t.component());
    out.push_back(t.component());
  } else if (t.is_tuple()) {
    for (const Type& e : t.elements()) flatten_types(e, out);
  } else if (t.is_enum_member()) {  // numba-cuda passes an enum member as its value (_prepare_args)
    flatten_types(t.enum_value(), out);
  } else if (!t.is_none()) {  // None (an omitted default) passes nothing

    out.push_back(t);
  }
}
}  // namespace

namespace {
// A kernel parameter may carry its Python name where no name of the emitter's own can be the same: those
// are %t<N>, %a<N>, %p<N>, %retptr, the block "entry" and labels with a '.'.
bool python_name_is_free(const std::string& n) {
  if (n.empty() || n == "entry" || n == "retptr") return false;
  bool numbered = n.size() > 1 && (n[0] == 't' || n[0] == 'a' || n[0] == 'p') &&
                  n.find_first_not_of("0123456789", 1) == std::string::npos;
  return !numbered;
}
}  // namespace

void FunctionEmitter::emit_core(const std::string& symbol, bool exported, bool kernel_entry) {
  kernel_entry_ = kernel_entry;
  std::vector<Type> flat;
  std::vector<std::string> flat_names;  // each flattened parameter's LLVM name
  for (std::size_t i = 0; i < fn_.arg_types.size(); ++i) {
    const Type& a = fn_.arg_types[i];
    std::size_t first = flat.size();
    flatten_types(a, flat);
    for (std::size_t k = first; k < flat.size(); ++k) flat_names.push_back("%p" + std::to_string(k));
    // numba-cuda names a kernel's scalar parameters after the Python ones (%"x").
    const std::string& py = fn_.local_names[i];
    if (kernel_entry && flat.size() == first + 1 && !a.is_array() && python_name_is_free(py))
      flat_names[first] = "%\"" + py + "\"";
  }
  std::string ret_data = fn_.return_type.is_none() ? "i8" : llvm_data_type(fn_.return_type);
  // A kernel (Numba ABI) is its own entry, as numba-cuda's: void, no result slot, its status kept here.
  std::string head = kernel_entry ? "define void @" + symbol + "("
                                  : std::string("define ") + (exported ? "" : "internal ") + "i32 @" + symbol + "(" +
                                        ret_data + "* noalias nocapture %retptr";
  // An array is one struct parameter of an internal core; exported (Numba ABI) it is its 5 + 2N pieces.
  entry_params_.clear();
  for (std::size_t i = 0; i < flat.size(); ++i) {
    if (flat[i].is_array() && exported) {
      std::vector<std::string> pieces = array_piece_types(flat[i]);
      for (std::size_t j = 0; j < pieces.size(); ++j) {
        head += (kernel_entry && entry_params_.empty() ? "" : ", ") + pieces[j] + " " + flat_names[i] + "." + std::to_string(j);
        entry_params_.push_back(pieces[j]);
      }
      continue;
    }
    head += (kernel_entry && entry_params_.empty() ? "" : ", ") + llvm_data_type(flat[i]) + " " + flat_names[i];
    entry_params_.push_back(llvm_data_type(flat[i]));
  }
  // A kernel's own body (the core its entry calls) is never alwaysinline, as numba-cuda's kernel function is
  // not: NVVM inlines the single call at -opt=3, and at -opt=0 (opt=False) the kernel keeps its locals in
  // local memory (__local_depot), as numba-cuda's does.
  bool kernel_body = !m_.options.device && &fn_ == m_.module.functions[0].get();
  bool forced = !(exported || kernel_body || fn_.recursive || m_.options.inline_never.count(fn_.def->name));
  head += forced ? ") alwaysinline" : ")";
  // numba-cuda's _dbg_optnone: what is not forced inline is neither optimised nor inlined (LLVM wants optnone
  // with noinline; a kernel entry, which NVVM requires to be inlinable, stays unmarked, as numba-cuda drops
  // its noinline).
  if (m_.options.optnone && !forced && !kernel_entry) head += " optnone noinline";
  int sp = m_.subprogram(*fn_.def, symbol, &fn_);
  if (sp >= 0) {
    head += " !dbg !" + std::to_string(sp);
    subprogram_ = sp;
    set_location(fn_.def->loc);
  }
  head += " {\n";

  // Locals, then the parameters rebuilt from their flattened pieces and stored in their slots.
  slot_ptr_.clear();
  for (std::size_t i = 0; i < fn_.local_names.size(); ++i) {
    const Type& t = fn_.local_types[i];
    slot_ptr_.push_back(t.is_unknown() || t.is_none() ? "" : alloca(llvm_value_type(t)));
  }
  std::size_t k = 0;
  auto take = [&](auto&& self, const Type& t) -> Value {
    if (t.is_complex() || t.is_tuple()) {
      std::vector<Value> parts;
      if (t.is_complex()) {
        parts.push_back(self(self, t.component()));
        parts.push_back(self(self, t.component()));
      } else {
        for (const Type& e : t.elements()) parts.push_back(self(self, e));
      }
      return make_aggregate(t, parts);
    }
    if (t.is_none()) return Value{"undef", t};
    if (t.is_enum_member()) return Value{self(self, t.enum_value()).v, t};
    std::string p = flat_names[k++];
    if (t.is_array() && exported) {
      std::vector<std::string> pieces;
      for (std::size_t j = 0; j < array_piece_types(t).size(); ++j) pieces.push_back(p + "." + std::to_string(j));
      return build_array(t, pieces);
    }
    return from_data(p, t);
  };
  for (std::size_t i = 0; i < fn_.arg_types.size(); ++i) {
    Value v = take(take, fn_.arg_types[i]);
    if (!slot_ptr_[i].empty()) store_local(static_cast<int>(i), v);
  }
  statements(fn_.body);
  if (!terminated_) return_status("0");
  if (!status_slot_.empty()) {  // debug=True: the first raising thread records where (numba-cuda's globals)
    body_ += "kernel.raised:\n  %.status = load i32, i32* " + status_slot_ + dbg_ + "\n";
    body_ += m_.record_raise(symbol, dbg_) + "  ret void" + dbg_ + "\n";
  }
  out_ += head + "entry:\n" + allocas_ + body_ + "}\n\n";
}

void FunctionEmitter::statements(const std::vector<StmtPtr>& body) {
  for (const StmtPtr& s : body) {
    if (terminated_) start_block(label("dead"));
    statement(*s);
  }
}

void FunctionEmitter::store_local(int slot, const Value& v) {
  const Type& t = fn_.local_types[static_cast<std::size_t>(slot)];
  if (t.is_none()) return;  // a variable that only ever holds None keeps nothing
  Value c = convert(v, t);
  std::string ty = llvm_value_type(t);
  line("store " + ty + " " + c.v + ", " + ty + "* " + slot_ptr_[static_cast<std::size_t>(slot)]);
  describe_variable(slot, c);
}

void FunctionEmitter::assign(const Expr& target, const Value& v) {
  if (target.kind == ExprKind::Name) {
    store_local(target.slot, v);
    return;
  }
  if (target.field >= 0) {
    record_store(target, v);
    return;
  }
  if (target.kind == ExprKind::Subscript && target.kids[0]->type.is_pointer()) {
    pointer_store(target, v);
    return;
  }
  if (target.kind == ExprKind::Subscript) {
    array_store(target, v);
    return;
  }
  for (std::size_t i = 0; i < target.kids.size(); ++i) assign(*target.kids[i], extract(v, i));
}

void FunctionEmitter::ret_value(const Value& v) {
  if (!fn_.return_type.is_none()) {
    Value d = to_data(convert(v, fn_.return_type));
    std::string ty = llvm_data_type(fn_.return_type);
    line("store " + ty + " " + d.v + ", " + ty + "* " + (host_ ? inline_result_ : "%retptr"));
  }
  return_status("0");
}

void FunctionEmitter::raise_status(int code) { return_status(std::to_string(code)); }

void FunctionEmitter::return_status(const std::string& status) {
  if (host_) {  // an inlined body: on to the caller's code after the call
    line("store i32 " + status + ", i32* " + inline_status_);
    br(inline_exit_);
  } else if (!kernel_entry_) {
    line("ret i32 " + status);
  } else if (status == "0" || !m_.options.debug) {
    line("ret void");  // without debug, numba-cuda's kernels return from a raise with no report
  } else {
    if (status_slot_.empty()) status_slot_ = alloca("i32");
    line("store i32 " + status + ", i32* " + status_slot_);
    br("kernel.raised");
  }
  terminated_ = true;
}

void FunctionEmitter::set_location(SourceLoc loc) {
  current_line_ = loc.line;
  if (subprogram_ >= 0) dbg_ = ", !dbg !" + std::to_string(m_.location(loc, subprogram_));
}

void FunctionEmitter::statement(const Stmt& s) {
  set_location(s.loc);
  switch (s.kind) {
    case StmtKind::Pass: return;
    case StmtKind::Expr:
      if (s.value->kind != ExprKind::Str) expr(*s.value);
      return;
    case StmtKind::Assign: {
      Value v = expr(*s.value);
      for (const auto& t : s.targets) assign(*t, v);
      return;
    }
    case StmtKind::AugAssign: {
      const Expr& target = *s.targets[0];
      if (target.field >= 0) {
        record_aug_assign(s);
        return;
      }
      if (target.kind == ExprKind::Subscript && target.kids[0]->type.is_pointer()) {
        pointer_aug_assign(s);
        return;
      }
      if (target.kind == ExprKind::Subscript) {
        array_aug_assign(s);
        return;
      }
      Value cur = expr(target);
      Value rhs = expr(*s.value);
      store_local(target.slot, aug_operation(s, target, cur, rhs));
      return;
    }
    case StmtKind::If: {
      std::string c = truth(expr(*s.test));
      std::string then_l = label("then"), else_l = label("else"), end_l = label("endif");
      cond_br(c, then_l, s.orelse.empty() ? end_l : else_l);
      start_block(then_l);
      statements(s.body);
      br(end_l);
      if (!s.orelse.empty()) {
        start_block(else_l);
        statements(s.orelse);
        br(end_l);
      }
      start_block(end_l);
      return;
    }
    case StmtKind::While: {
      std::string head = label("while"), body = label("body"), els = label("whileelse"), end = label("endwhile");
      br(head);
      start_block(head);
      std::string c = truth(expr(*s.test));
      cond_br(c, body, els);
      start_block(body);
      loops_.push_back({head, end});
      statements(s.body);
      loops_.pop_back();
      br(head);
      start_block(els);
      statements(s.orelse);
      br(end);
      start_block(end);
      return;
    }
    case StmtKind::For: for_loop(s); return;
    case StmtKind::Break: br(loops_.back().brk); return;
    case StmtKind::Continue: br(loops_.back().cont); return;
    case StmtKind::Return:
      if (s.value) ret_value(expr(*s.value));
      else ret_value(Value{"", Type::none()});
      return;
    case StmtKind::Assert: {
      // Under the C ABI there is no exception channel: asserts are ignored, or trap with debug.
      if (m_.options.abi == Abi::c && !m_.options.debug) return;
      std::string c = truth(expr(*s.test));
      std::string ok = label("assert_ok"), bad = label("assert_fail");
      cond_br(c, ok, bad);
      start_block(bad);
      std::vector<std::string> args;  // assert x, "message" raises AssertionError("message")
      if (s.msg && s.msg->kind == ExprKind::Str && s.msg->ival == 0) args.push_back("s:" + s.msg->name);
      raise_exception("builtins.AssertionError", args, s.loc);
      start_block(ok);
      return;
    }
    case StmtKind::Raise: raise_exception(s.what, s.exception_args, s.loc); return;
    case StmtKind::Def:
    case StmtKind::Nonlocal:
    case StmtKind::Unsupported: return;
  }
}

}  // namespace cubridge::compiler
