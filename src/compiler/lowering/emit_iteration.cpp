// Internal: for loops in NVVM IR (see emitter.hpp). One loop shape for every iterable: an iterator is
// started before the loop (its operands evaluated once, as Python evaluates the iterable once), tested
// at the head, read into the target at the top of the body and advanced at the latch, where `continue`
// goes. range() counts with its own type; arrays and tuples count positions in int64; enumerate() and
// zip() hold the iterators of their operands, and zip() stops when the first of them is exhausted.
#include "compiler/lowering/emitter.hpp"

namespace cubridge::compiler {

struct FunctionEmitter::Iterator {
  IterKind kind = IterKind::None;
  Type item;
  std::string counter;  ///< an entry-block slot: the range's value or the position (int64)
  std::string stop;     ///< Range: the stop value; Array, Tuple: the number of items
  std::string step;     ///< Range only
  Value source;         ///< Array: the array being walked
  std::string held;     ///< Tuple: the tuple in memory
  std::size_t count = 0;
  std::vector<Iterator> parts;  ///< Enumerate: the inner iterator; Zip: one per operand
};

namespace {
const Type kI64 = Type::integer(64, true);
}  // namespace

FunctionEmitter::Iterator FunctionEmitter::start_iterator(const Expr& e) {
  Iterator it;
  it.kind = e.iter;
  it.item = e.item;
  auto counter_from = [&](const std::string& ty, const std::string& first) {
    it.counter = alloca(ty);
    line("store " + ty + " " + first + ", " + ty + "* " + it.counter);
  };
  switch (e.iter) {
    case IterKind::Range: {
      const Type& T = e.item;
      std::size_t n = e.kids.size() - 1;
      std::string start = "0";
      it.step = "1";
      if (n == 1) {
        it.stop = convert(expr(*e.kids[1]), T).v;
      } else {
        start = convert(expr(*e.kids[1]), T).v;
        it.stop = convert(expr(*e.kids[2]), T).v;
        if (n == 3) it.step = convert(expr(*e.kids[3]), T).v;
      }
      counter_from(llvm_value_type(T), start);
      break;
    }
    case IterKind::Array:
      it.source = expr(e);
      it.stop = array_field(it.source, 5, 0).v;
      counter_from("i64", "0");
      break;
    case IterKind::Tuple: {
      Value t = expr(e);
      it.count = t.t.elements().size();
      it.held = tuple_in_memory(t);
      it.stop = std::to_string(it.count);
      counter_from("i64", "0");
      break;
    }
    case IterKind::Enumerate: {
      it.parts.push_back(start_iterator(*e.kids[1]));
      counter_from("i64", e.kids.size() == 3 ? convert(expr(*e.kids[2]), kI64).v : "0");
      break;
    }
    case IterKind::Zip:
      for (std::size_t k = 1; k < e.kids.size(); ++k) it.parts.push_back(start_iterator(*e.kids[k]));
      break;
    case IterKind::None: break;
  }
  return it;
}

std::string FunctionEmitter::iterator_has_item(Iterator& it) {
  switch (it.kind) {
    case IterKind::Range: {
      const Type& T = it.item;
      std::string ty = llvm_value_type(T);
      std::string i = load(it.counter, T).v;
      if (T.is_signed()) {
        // range() with a negative step counts down; a zero step (ValueError in Python) runs no iterations.
        std::string up = ins("icmp sgt " + ty + " " + it.step + ", 0");
        std::string lt = ins("icmp slt " + ty + " " + i + ", " + it.stop);
        std::string gt = ins("icmp sgt " + ty + " " + i + ", " + it.stop);
        std::string down = ins("icmp slt " + ty + " " + it.step + ", 0");
        std::string gtd = ins("and i1 " + down + ", " + gt);
        return ins("select i1 " + up + ", i1 " + lt + ", i1 " + gtd);
      }
      std::string nz = ins("icmp ne " + ty + " " + it.step + ", 0");
      std::string lt = ins("icmp ult " + ty + " " + i + ", " + it.stop);
      return ins("and i1 " + nz + ", " + lt);
    }
    case IterKind::Array:
    case IterKind::Tuple:
      return ins("icmp slt i64 " + ins("load i64, i64* " + it.counter) + ", " + it.stop);
    case IterKind::Enumerate: return iterator_has_item(it.parts[0]);
    case IterKind::Zip: {
      std::string all = "true";
      for (Iterator& p : it.parts) all = ins("and i1 " + all + ", " + iterator_has_item(p));
      return all;
    }
    case IterKind::None: break;
  }
  return "false";
}

Value FunctionEmitter::iterator_item(Iterator& it) {
  switch (it.kind) {
    case IterKind::Range: return load(it.counter, it.item);
    case IterKind::Array: {
      // Item i: the element of a 1-d array, else the view of row i (the remaining axes, layout 'A').
      const Type& a = it.source.t;
      std::string i = ins("load i64, i64* " + it.counter);
      std::string first = strided_pointer(array_field(it.source, 4).v, a.dtype(), {i}, {axis_stride(it.source, 0)});
      if (!it.item.is_array()) {
        std::string ety = llvm_data_type(a.dtype());
        return from_data(ins("load " + ety + ", " + ety + "* " + first), a.dtype());
      }
      Indexed row{first, {}, {}};
      for (int k = 1; k < a.ndim(); ++k) {
        row.shape.push_back(array_field(it.source, 5, k).v);
        row.strides.push_back(axis_stride(it.source, k));
      }
      return view(it.item, row);
    }
    case IterKind::Tuple:
      return tuple_item_at(it.held, it.item, it.count, ins("load i64, i64* " + it.counter));
    case IterKind::Enumerate:
      return make_aggregate(it.item, {Value{ins("load i64, i64* " + it.counter), kI64}, iterator_item(it.parts[0])});
    case IterKind::Zip: {
      std::vector<Value> items;
      for (Iterator& p : it.parts) items.push_back(iterator_item(p));
      return make_aggregate(it.item, items);
    }
    case IterKind::None: break;
  }
  return {"undef", it.item};
}

void FunctionEmitter::iterator_advance(Iterator& it) {
  switch (it.kind) {
    case IterKind::Range: {
      std::string ty = llvm_value_type(it.item);
      std::string next = ins("add " + ty + " " + load(it.counter, it.item).v + ", " + it.step);
      line("store " + ty + " " + next + ", " + ty + "* " + it.counter);
      return;
    }
    case IterKind::Array:
    case IterKind::Tuple:
    case IterKind::Enumerate:
      line("store i64 " + ins("add i64 " + ins("load i64, i64* " + it.counter) + ", 1") + ", i64* " + it.counter);
      if (it.kind == IterKind::Enumerate) iterator_advance(it.parts[0]);
      return;
    case IterKind::Zip:
      for (Iterator& p : it.parts) iterator_advance(p);
      return;
    case IterKind::None: return;
  }
}

void FunctionEmitter::for_loop(const Stmt& s) {
  Iterator it = start_iterator(*s.value);
  std::string head = label("for"), body = label("forbody"), latch = label("forlatch"), els = label("forelse"),
              end = label("endfor");
  br(head);
  start_block(head);
  cond_br(iterator_has_item(it), body, els);
  start_block(body);
  assign(*s.targets[0], iterator_item(it));
  loops_.push_back({latch, end});
  statements(s.body);
  loops_.pop_back();
  br(latch);
  start_block(latch);
  iterator_advance(it);
  br(head);
  start_block(els);
  statements(s.orelse);
  br(end);
  start_block(end);
}

}  // namespace cubridge::compiler
