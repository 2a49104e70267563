// Internal: variable versions, as numba's SSA makes them. Each definition of a local variable (a parameter's
// value on entry, an assignment, an augmented assignment, a for loop's target) starts with a version of its
// own; every read of the variable joins the definitions that reach it (a reaching-definitions dataflow over
// the function's control flow: if/else, while/for with break, continue and else, return and raise ending a
// path), as numba's phi nodes join them. Each joined class then becomes a variable of its own ("x#v1"), typed
// alone; definitions that meet at a read unify exactly as one variable did before. Where a read sees only
// `x = 0.5` and a later read only `x = 9007199254740993`, the first is float64 and the second int64.
// - The class holding the parameter (else the first definition) keeps the source's name, so a read reached
//   by no definition at all names the same variable it did before this pass, and the variables reported
//   (_type_annotation's typemap, variable_types) name it as numba's first version "x"; the others are
//   "x#v1", "x#v2" (numba's "x.1", "x.2"), which messages spell "x" (source_names).
// - An augmented assignment `x += v` reads x and defines it in the same Name: its definition joins those
//   that reach it (the same variable before and after, as the statement cannot hold two names), or, where
//   none reaches, the class that keeps the source's name.
// - A test CPython decides itself (`while True:`, `if False:`) has only the path numba sees; any other
//   test may go either way. Reads in code no path reaches (after a return) are reached by no definition.
// - A read that some path reaches with the variable never assigned (not a parameter, no definition on it)
//   is reported: numba's SSA finds no definition there and warns "Detected uninitialized variable x".
//   numba prunes branches on constants before its SSA; here only the tests CPython decides are followed.
#include <algorithm>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "compiler/typing/typer.hpp"

namespace cubridge::compiler {

namespace {

/// The definitions of each variable that may reach a point (none live: the point cannot be reached).
struct Reaching {
  bool live = true;
  std::map<std::string, std::set<int>> defs;
  std::set<std::string> unassigned;  ///< locals that some path reaches here without a definition
  bool operator==(const Reaching&) const = default;
};

/// A test CPython decides when it compiles (`while True:`, `if 0:`): the path it never takes is not in the
/// bytecode numba reads, so no definition reaches anything along it.
std::optional<bool> literal_truth(const Expr& test) {
  if (test.kind == ExprKind::Bool || (test.kind == ExprKind::Int && !test.int_unsigned)) return test.ival != 0;
  if (test.kind == ExprKind::NoneLit) return false;
  return std::nullopt;
}

Reaching join(const Reaching& a, const Reaching& b) {
  if (!a.live) return b;
  if (!b.live) return a;
  Reaching out = a;
  for (const auto& [name, ids] : b.defs) out.defs[name].insert(ids.begin(), ids.end());
  out.unassigned.insert(b.unassigned.begin(), b.unassigned.end());
  return out;
}

class Versions {
 public:
  Versions(const std::vector<std::string>& params, std::vector<StmtPtr>& body) {
    for (const std::string& p : params) locals_.insert(p);
    collect(body);
    for (const std::string& p : params) {
      defs_.push_back({p, nullptr});
      entry_.defs[p] = {static_cast<int>(defs_.size()) - 1};
    }
    for (const std::string& name : locals_)
      if (!entry_.defs.count(name)) entry_.unassigned.insert(name);
  }

  std::vector<std::pair<std::string, SourceLoc>> run(std::vector<StmtPtr>& body) {
    Reaching s = entry_;
    walk(body, s);
    std::vector<std::pair<std::string, SourceLoc>> unassigned;
    for (const auto& [node, name] : unassigned_reads_) unassigned.emplace_back(name, node->loc);
    std::sort(unassigned.begin(), unassigned.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second.line, a.second.col, a.first) < std::tie(b.second.line, b.second.col, b.first);
    });
    rename();
    return unassigned;
  }

 private:
  struct Def {
    std::string name;
    Expr* node;  ///< the Name bound (null: a parameter's value on entry)
  };
  struct Loop {
    Reaching exits{false, {}};      ///< at each break
    Reaching continues{false, {}};  ///< at each continue
  };

  std::set<std::string> locals_;
  std::vector<Def> defs_;
  std::unordered_map<const Expr*, int> def_of_;
  std::unordered_map<Expr*, std::set<int>> reads_;  ///< each Name read: the definitions reaching it
  std::unordered_map<const Expr*, std::string> unassigned_reads_;  ///< reads some path reaches unassigned
  std::vector<Loop> loops_;
  Reaching entry_;

  void collect_target(const Expr& t) {
    if (t.kind == ExprKind::Name) locals_.insert(t.name);
    if (t.kind == ExprKind::Tuple)
      for (const ExprPtr& k : t.kids) collect_target(*k);
  }

  void collect(const std::vector<StmtPtr>& body) {
    for (const StmtPtr& s : body) {
      if (s->kind == StmtKind::Assign || s->kind == StmtKind::AugAssign || s->kind == StmtKind::For)
        for (const ExprPtr& t : s->targets)
          if (t) collect_target(*t);
      collect(s->body);
      collect(s->orelse);
    }
  }

  void read(Expr& e, const Reaching& s) {
    if (e.kind == ExprKind::Name && locals_.count(e.name)) {
      std::set<int>& seen = reads_[&e];
      if (s.live && s.unassigned.count(e.name)) unassigned_reads_.emplace(&e, e.name);
      auto it = s.defs.find(e.name);
      if (s.live && it != s.defs.end()) seen.insert(it->second.begin(), it->second.end());
    }
    for (ExprPtr& k : e.kids)
      if (k) read(*k, s);
  }

  int def_id(Expr& node) {
    auto [it, added] = def_of_.emplace(&node, static_cast<int>(defs_.size()));
    if (added) defs_.push_back({node.name, &node});
    return it->second;
  }

  /// An assignment's target: Names (alone or in tuples) are defined, anything else (x[i], r.f) is read.
  void define(Expr& t, Reaching& s) {
    if (t.kind == ExprKind::Name) {
      s.defs[t.name] = {def_id(t)};
      s.unassigned.erase(t.name);
    } else if (t.kind == ExprKind::Tuple) {
      for (ExprPtr& k : t.kids) define(*k, s);
    } else {
      read(t, s);
    }
  }

  void walk(std::vector<StmtPtr>& body, Reaching& s) {
    for (StmtPtr& sp : body) statement(*sp, s);
  }

  void statement(Stmt& st, Reaching& s) {
    switch (st.kind) {
      case StmtKind::Assign:
        if (st.value) read(*st.value, s);
        for (ExprPtr& t : st.targets) define(*t, s);
        return;
      case StmtKind::AugAssign:
        if (st.value) read(*st.value, s);
        for (ExprPtr& t : st.targets) {
          read(*t, s);
          if (t->kind == ExprKind::Name) {
            s.defs[t->name] = {def_id(*t)};
            s.unassigned.erase(t->name);
          }
        }
        return;
      case StmtKind::If: {
        read(*st.test, s);
        Reaching other = s;
        const std::optional<bool> known = literal_truth(*st.test);
        if (known == false) s.live = false;
        if (known == true) other.live = false;
        walk(st.body, s);
        walk(st.orelse, other);
        s = join(s, other);
        return;
      }
      case StmtKind::While:
      case StmtKind::For:
        loop(st, s);
        return;
      case StmtKind::Break:
        loops_.back().exits = join(loops_.back().exits, s);
        s.live = false;
        return;
      case StmtKind::Continue:
        loops_.back().continues = join(loops_.back().continues, s);
        s.live = false;
        return;
      case StmtKind::Return:
      case StmtKind::Raise:
        if (st.value) read(*st.value, s);
        s.live = false;
        return;
      default:
        for (ExprPtr& t : st.targets)
          if (t) read(*t, s);
        for (ExprPtr* p : {&st.value, &st.test, &st.msg})
          if (*p) read(**p, s);
        walk(st.body, s);
        walk(st.orelse, s);
        return;
    }
  }

  /// A loop: its head is reached from before it, from the end of its body and from each continue, so the
  /// body is walked until the definitions reaching the head stop growing.
  void loop(Stmt& st, Reaching& s) {
    const bool is_for = st.kind == StmtKind::For;
    if (is_for && st.value) read(*st.value, s);  // the iterable, evaluated once before the loop
    Reaching head = s;
    Reaching at_test;
    Loop done;
    for (;;) {
      at_test = head;
      if (!is_for && st.test) read(*st.test, at_test);
      Reaching inside = at_test;
      if (!is_for && st.test && literal_truth(*st.test) == false) inside.live = false;
      if (is_for)
        for (ExprPtr& t : st.targets) define(*t, inside);
      loops_.emplace_back();
      walk(st.body, inside);
      done = loops_.back();
      loops_.pop_back();
      Reaching next = join(head, join(inside, done.continues));
      if (next == head) break;
      head = std::move(next);
    }
    if (!is_for && st.test && literal_truth(*st.test) == true) at_test.live = false;  // left only by a break
    walk(st.orelse, at_test);  // the test failed (the iterable ran out): the else runs, then the loop ends
    s = join(at_test, done.exits);
  }

  int find(std::vector<int>& parent, int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  }

  void rename() {
    std::vector<int> parent(defs_.size());
    std::iota(parent.begin(), parent.end(), 0);
    auto unite = [&](int a, int b) { parent[find(parent, a)] = find(parent, b); };
    // The definition whose class keeps the source's name: the parameter's, else the first.
    std::map<std::string, int> first;
    for (std::size_t i = 0; i < defs_.size(); ++i)
      if (defs_[i].node == nullptr) first[defs_[i].name] = static_cast<int>(i);
    for (std::size_t i = 0; i < defs_.size(); ++i) first.emplace(defs_[i].name, static_cast<int>(i));
    for (const auto& [node, ids] : reads_) {
      for (int id : ids) unite(id, *ids.begin());
      auto d = def_of_.find(node);
      if (d == def_of_.end()) continue;
      // `x += v` where no definition reaches (x unbound on every path there): x is the variable it was
      // before this pass, the one that keeps the name, as a plain read reached by none is.
      unite(d->second, ids.empty() ? first.at(node->name) : *ids.begin());
    }
    // Each class's name: the keeper's is the source's, the others get "x#v1", "x#v2" in the order their
    // first definition appears.
    std::map<std::string, int> keeper;  // variable -> the root of the class that keeps its name
    for (const auto& [name, id] : first) keeper[name] = find(parent, id);
    std::map<int, std::string> names;
    std::map<std::string, int> counter;  // per variable, as numba numbers x.1, x.2
    for (std::size_t i = 0; i < defs_.size(); ++i) {
      const int root = find(parent, static_cast<int>(i));
      if (names.count(root)) continue;
      const std::string& name = defs_[i].name;
      names[root] = keeper[name] == root ? name : name + "#v" + std::to_string(++counter[name]);
    }
    for (std::size_t i = 0; i < defs_.size(); ++i)
      if (defs_[i].node) defs_[i].node->name = names[find(parent, static_cast<int>(i))];
    for (auto& [node, ids] : reads_)
      if (!ids.empty()) node->name = names[find(parent, *ids.begin())];
  }
};

}  // namespace

std::vector<std::pair<std::string, SourceLoc>> version_variables(const std::vector<std::string>& params,
                                                                 std::vector<StmtPtr>& body) {
  return Versions(params, body).run(body);
}

}  // namespace cubridge::compiler
