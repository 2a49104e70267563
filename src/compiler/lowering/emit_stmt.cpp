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
  std::string p = "%a" + std::to_string(next_tmp_++);
  allocas_ += "  " + p + " = alloca " + ty + "\n";
  return p;
}

std::string FunctionEmitter::alloca_aligned(const std::string& ty, int align) {
  std::string p = "%a" + std::to_string(next_tmp_++);
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
  } else if (!t.is_none()) {  // None (an omitted default) passes nothing

    out.push_back(t);
  }
}
}  // namespace

void FunctionEmitter::emit_core(const std::string& symbol, bool exported) {
  std::vector<Type> flat;
  for (const Type& a : fn_.arg_types) flatten_types(a, flat);
  std::string ret_data = fn_.return_type.is_none() ? "i8" : llvm_data_type(fn_.return_type);
  std::string head = std::string("define ") + (exported ? "" : "internal ") + "i32 @" + symbol + "(" + ret_data +
                     "* noalias nocapture %retptr";
  // An array is one struct parameter of an internal core; exported (Numba ABI) it is its 5 + 2N pieces.
  for (std::size_t i = 0; i < flat.size(); ++i) {
    if (flat[i].is_array() && exported) {
      std::vector<std::string> pieces = array_piece_types(flat[i]);
      for (std::size_t j = 0; j < pieces.size(); ++j) head += ", " + pieces[j] + " %p" + std::to_string(i) + "." + std::to_string(j);
      continue;
    }
    head += ", " + llvm_data_type(flat[i]) + " %p" + std::to_string(i);
  }
  // A kernel's own body (the core its entry calls) is never alwaysinline, as numba-cuda's kernel function is
  // not: NVVM inlines the single call at -opt=3, and at -opt=0 (opt=False) the kernel keeps its locals in
  // local memory (__local_depot), as numba-cuda's does.
  bool kernel_body = !m_.options.device && &fn_ == m_.module.functions[0].get();
  bool forced = !(exported || kernel_body || fn_.recursive || m_.options.inline_never.count(fn_.def->name));
  head += forced ? ") alwaysinline" : ")";
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
    std::string p = "%p" + std::to_string(k++);
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
  if (!terminated_) line("ret i32 0");
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
    line("store " + ty + " " + d.v + ", " + ty + "* %retptr");
  }
  line("ret i32 0");
  terminated_ = true;
}

void FunctionEmitter::raise_status(int code) {
  line("ret i32 " + std::to_string(code));
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
    case StmtKind::Unsupported: return;
  }
}

}  // namespace cubridge::compiler
