// Internal: recursive-descent parser of the Python subset (see ast.hpp). Constructs outside the subset
// that Python itself accepts become Unsupported nodes or a CompileError naming them, so the message can
// say what is supported instead of "syntax error".
// Over 600 lines on purpose: one grammar, one recursive-descent class whose levels call each other;
// splitting it would only scatter the precedence ladder across files.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "compiler/frontend/ast.hpp"
#include "compiler/frontend/lexer.hpp"
#include "compiler/frontend/string_literal.hpp"

namespace cubridge::compiler {

namespace {
std::string located(const std::string& file, SourceLoc loc, const std::string& message) {
  return file + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": " + message;
}
}  // namespace

void fail(const std::string& file, SourceLoc loc, const std::string& message) {
  throw CompileError(located(file, loc, message), file, loc.line, loc.col);
}

void fail_type(const std::string& file, SourceLoc loc, const std::string& message) {
  throw CompileTypeError(located(file, loc, message), file, loc.line, loc.col);
}

namespace {

constexpr const char* kStatementsSupported =
    "supported statements: assignment (also tuple unpacking and augmented), if/elif/else, while, "
    "for ... in range(...) with break/continue/else, return, pass, assert, raise";
constexpr const char* kExpressionsSupported =
    "supported expressions: numbers, names, tuples, arithmetic, bitwise and comparison operators, "
    "and/or/not, conditional expressions, calls of builtins, math functions and module functions";

class Parser {
 public:
  Parser(std::vector<Token> toks, const std::string& file) : t_(std::move(toks)), file_(file) {}

  ModuleAst module() {
    ModuleAst m;
    while (peek().kind != Tok::End) {
      if (peek().kind == Tok::Newline) { ++p_; continue; }
      if (peek().kind == Tok::Indent || peek().kind == Tok::Dedent) { ++p_; continue; }
      top_level(m);
    }
    lift_nested_functions(m);
    return m;
  }

 private:
  std::vector<Token> t_;
  std::size_t p_ = 0;
  const std::string& file_;
  int depth_ = 0;  // recursion guard (the fuzzer finds deeply nested input)

  const Token& peek(std::size_t k = 0) const { return t_[std::min(p_ + k, t_.size() - 1)]; }
  bool is_op(std::string_view s, std::size_t k = 0) const { return peek(k).kind == Tok::Op && peek(k).text == s; }
  bool is_kw(std::string_view s, std::size_t k = 0) const { return peek(k).kind == Tok::Name && peek(k).text == s; }
  [[noreturn]] void error(const Token& t, const std::string& msg) { fail(file_, t.loc, msg); }
  std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::Newline: return "end of line";
      case Tok::Indent: return "indent";
      case Tok::Dedent: return "dedent";
      case Tok::End: return "end of input";
      default: return "'" + std::string(t.text) + "'";
    }
  }
  void expect_op(std::string_view s) {
    if (!is_op(s)) error(peek(), "expected '" + std::string(s) + "', found " + describe(peek()));
    ++p_;
  }
  void expect_newline() {
    if (is_op(";")) error(peek(), "several statements on one line (';') are not supported; put each on its own line");
    if (peek().kind != Tok::Newline && peek().kind != Tok::End)
      error(peek(), "expected end of line, found " + describe(peek()));
    if (peek().kind == Tok::Newline) ++p_;
  }
  std::string expect_name() {
    if (peek().kind != Tok::Name) error(peek(), "expected a name, found " + describe(peek()));
    return std::string(t_[p_++].text);
  }

  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& pp) : p(pp) {
      if (++p.depth_ > 200) p.error(p.peek(), "expression or block nested too deeply (more than 200 levels)");
    }
    ~DepthGuard() { --p.depth_; }
  };

  // Skips to the start of the next top-level statement (after an error in a function body).
  void skip_block_at_top() {
    int level = 0;
    while (peek().kind != Tok::End) {
      Tok k = peek().kind;
      ++p_;
      if (k == Tok::Indent) ++level;
      if (k == Tok::Dedent && --level <= 0 && level == 0) break;
      if (k == Tok::Newline && level == 0 && peek().kind != Tok::Indent) break;
    }
  }

  void top_level(ModuleAst& m) {
    while (is_op("@")) {  // decorators are ignored: the function is compiled as written
      while (peek().kind != Tok::Newline && peek().kind != Tok::End) ++p_;
      expect_newline();
    }
    if (is_kw("def")) {
      std::size_t start = p_;
      FunctionDef f;
      f.file = file_;
      try {
        parse_def(f);
        check_nesting(f);  // before anything walks the tree recursively
      } catch (const CompileError& e) {
        if (f.name.empty()) throw;
        f.parse_error = e.what();
        f.body.clear();
        p_ = start;
        skip_block_at_top();
      }
      m.functions.push_back(std::move(f));
      return;
    }
    if (is_kw("import")) {
      ++p_;
      for (;;) {
        std::string name = dotted_name();
        std::string alias = name.substr(0, name.find('.'));
        if (is_kw("as")) { ++p_; alias = expect_name(); }
        m.imports.emplace_back(alias, name);
        if (!is_op(",")) break;
        ++p_;
      }
      expect_newline();
      return;
    }
    if (is_kw("from")) {
      ++p_;
      std::string mod = dotted_name();
      if (!is_kw("import")) error(peek(), "expected 'import', found " + describe(peek()));
      ++p_;
      bool paren = is_op("(");
      if (paren) ++p_;
      for (;;) {
        if (is_op("*")) { ++p_; break; }
        std::string name = expect_name();
        std::string alias = name;
        if (is_kw("as")) { ++p_; alias = expect_name(); }
        m.imports.emplace_back(alias, mod + "." + name);
        if (!is_op(",")) break;
        ++p_;
        if (paren && is_op(")")) break;
      }
      if (paren) expect_op(")");
      expect_newline();
      return;
    }
    // NAME = expr at module level is a constant candidate; anything else is skipped (only functions
    // and the constants they use matter, and a module may hold code we never compile).
    if (peek().kind == Tok::Name && is_op("=", 1) && !is_op("=", 2)) {
      std::size_t start = p_;
      try {
        std::string name(t_[p_].text);
        p_ += 2;
        ExprPtr value = test_list();
        if (peek().kind == Tok::Newline || peek().kind == Tok::End) {
          expect_newline();
          check_nesting(*value, file_);  // a too-deep constant is skipped like any other it cannot read
          m.assignments.emplace_back(name, std::move(value));
          return;
        }
      } catch (const CompileError&) {
      }
      p_ = start;
    }
    skip_block_at_top();
  }

  std::string dotted_name() {
    std::string s = expect_name();
    while (is_op(".")) {
      ++p_;
      s += "." + expect_name();
    }
    return s;
  }

  void parse_def(FunctionDef& f) {
    f.loc = peek().loc;
    ++p_;  // def
    f.name = expect_name();
    f.qualname = f.name;
    expect_op("(");
    while (!is_op(")")) {
      if (f.vararg)
        error(peek(), "parameters after '*" + f.params.back() + "' are not supported (keyword-only parameters)");
      if (is_op("*") && peek(1).kind == Tok::Name) {  // *args: the surplus positional arguments, as a tuple
        ++p_;
        f.vararg = true;
      } else if (is_op("*") || is_op("**") || is_op("/")) {
        error(peek(), "parameter '" + std::string(peek().text) +
                          "' is not supported; functions take positional parameters and *args only");
      }
      f.param_locs.push_back(peek().loc);
      f.params.push_back(expect_name());
      if (is_op(":")) { ++p_; test(); }  // annotations are ignored: the signature gives the types
      f.defaults.emplace_back();
      if (f.vararg && is_op("=")) error(peek(), "'*" + f.params.back() + "' cannot have a default value");
      if (is_op("=")) {
        ++p_;
        f.defaults.back() = test();
      } else if (f.defaults.size() > 1 && f.defaults[f.defaults.size() - 2]) {
        fail(file_, f.param_locs.back(), "parameter '" + f.params.back() + "' without a default follows a parameter with a default");
      }
      if (!is_op(",")) break;
      ++p_;
    }
    expect_op(")");
    if (is_op("->")) { ++p_; test(); }
    expect_op(":");
    f.body = block();
  }

  std::vector<StmtPtr> block() {
    std::vector<StmtPtr> body;
    if (peek().kind != Tok::Newline) {  // "if x: return 1" on one line
      simple_statements(body);
      return body;
    }
    ++p_;
    if (peek().kind != Tok::Indent) error(peek(), "expected an indented block");
    ++p_;
    DepthGuard g(*this);
    while (peek().kind != Tok::Dedent && peek().kind != Tok::End) {
      if (peek().kind == Tok::Newline) { ++p_; continue; }
      statement(body);
    }
    if (peek().kind == Tok::Dedent) ++p_;
    return body;
  }

  void simple_statements(std::vector<StmtPtr>& out) {
    add_statement(out, simple_statement());
    while (is_op(";")) {
      ++p_;
      if (peek().kind == Tok::Newline || peek().kind == Tok::End) break;
      add_statement(out, simple_statement());
    }
    expect_newline();
  }

  // `return g(*h(x))`: the typer spreads a tuple it can name, so a value unpacked as the first argument of the
  // call a statement computes is assigned to a variable of its own just before the statement. It is the first
  // thing that statement evaluates (after the callee's name), so the order of evaluation is Python's.
  void add_statement(std::vector<StmtPtr>& out, StmtPtr s) {
    const bool simple_targets = std::all_of(s->targets.begin(), s->targets.end(),
                                            [](const ExprPtr& t) { return t->kind == ExprKind::Name; });
    Expr* call = s->value.get();
    if ((s->kind == StmtKind::Return || s->kind == StmtKind::Expr || (s->kind == StmtKind::Assign && simple_targets)) &&
        call && call->kind == ExprKind::Call && call->kids.size() > 1 && call->keywords.size() < call->kids.size() - 1 &&
        (call->kids[0]->kind == ExprKind::Name || call->kids[0]->kind == ExprKind::Attribute)) {
      Expr& first = *call->kids[1];
      if (first.kind == ExprKind::Unsupported && first.name == kStarredArgument && first.kids[0]->kind != ExprKind::Name) {
        auto hoisted = make(StmtKind::Assign, first.loc);
        std::string name = "star$" + std::to_string(first.loc.line) + "_" + std::to_string(first.loc.col);
        auto target = make_expr(ExprKind::Name, first.loc);
        target->name = name;
        hoisted->targets.push_back(std::move(target));
        hoisted->value = std::move(first.kids[0]);
        first.kids[0] = make_expr(ExprKind::Name, first.loc);
        first.kids[0]->name = name;
        out.push_back(std::move(hoisted));
      }
    }
    out.push_back(std::move(s));
  }

  StmtPtr make(StmtKind k, SourceLoc loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->loc = loc;
    return s;
  }

  void statement(std::vector<StmtPtr>& out) {
    const Token& t = peek();
    if (t.kind == Tok::Indent) error(t, "unexpected indent");
    if (t.kind == Tok::Name) {
      std::string_view k = t.text;
      if (k == "if") { out.push_back(if_statement()); return; }
      if (k == "while" || k == "for") {
        auto s = make(k == "while" ? StmtKind::While : StmtKind::For, t.loc);
        ++p_;
        if (k == "while") {
          s->test = named_test();
        } else {
          s->targets.push_back(target_list());
          if (!is_kw("in")) error(peek(), "expected 'in', found " + describe(peek()));
          ++p_;
          s->value = test_list();
        }
        expect_op(":");
        s->body = block();
        if (is_kw("else")) {
          ++p_;
          expect_op(":");
          s->orelse = block();
        }
        out.push_back(std::move(s));
        return;
      }
      if (k == "def") {  // lifted out of the function by lift_nested_functions
        auto s = make(StmtKind::Def, t.loc);
        s->def = std::make_shared<FunctionDef>();
        s->def->file = file_;
        parse_def(*s->def);
        s->what = "a nested function definition ('def')";
        out.push_back(std::move(s));
        return;
      }
      if (k == "nonlocal") {
        auto s = make(StmtKind::Nonlocal, t.loc);
        ++p_;
        for (;;) {
          auto n = make_expr(ExprKind::Name, peek().loc);
          n->name = expect_name();
          s->targets.push_back(std::move(n));
          if (!is_op(",")) break;
          ++p_;
        }
        s->what = "the 'nonlocal' statement";
        expect_newline();
        out.push_back(std::move(s));
        return;
      }
      static const char* unsupported[] = {"class", "with", "try", "async", "lambda", "match", "del", "global",
                                          "nonlocal", "yield", "import", "from", "print", "await"};
      for (const char* u : unsupported) {
        if (k == u && !(k == "match" && (is_op("=", 1) || is_op("(", 1))) && !(k == "print" && is_op("(", 1))) {
          std::string what = "the '" + std::string(k) + "' statement";
          if (k == "lambda") what = "a lambda";
          error(t, what + " is not supported in compiled functions; " + kStatementsSupported);
        }
      }
    }
    if (t.kind == Tok::Op && t.text == "@") error(t, "decorators inside a compiled function are not supported; " + std::string(kStatementsSupported));
    simple_statements(out);
  }

  StmtPtr if_statement() {
    auto s = make(StmtKind::If, peek().loc);
    ++p_;  // if / elif
    s->test = named_test();
    expect_op(":");
    s->body = block();
    if (is_kw("elif")) {
      s->orelse.push_back(if_statement());
    } else if (is_kw("else")) {
      ++p_;
      expect_op(":");
      s->orelse = block();
    }
    return s;
  }

  ExprPtr named_test() {
    ExprPtr e = test();
    if (is_op(":=")) error(peek(), "the walrus operator ':=' is not supported; assign on its own line");
    return e;
  }

  StmtPtr simple_statement() {
    const Token& t = peek();
    if (t.kind == Tok::Name) {
      if (t.text == "pass") { ++p_; return make(StmtKind::Pass, t.loc); }
      if (t.text == "break") { ++p_; return make(StmtKind::Break, t.loc); }
      if (t.text == "continue") { ++p_; return make(StmtKind::Continue, t.loc); }
      if (t.text == "return") {
        auto s = make(StmtKind::Return, t.loc);
        ++p_;
        if (peek().kind != Tok::Newline && peek().kind != Tok::End && !is_op(";")) s->value = test_list();
        return s;
      }
      if (t.text == "assert") {
        auto s = make(StmtKind::Assert, t.loc);
        ++p_;
        s->test = test();
        if (is_op(",")) { ++p_; s->msg = test(); }
        return s;
      }
      if (t.text == "raise") {
        auto s = make(StmtKind::Raise, t.loc);
        ++p_;
        if (peek().kind == Tok::Newline || peek().kind == Tok::End || is_op(";"))
          error(t, "a bare 'raise' (re-raising) is not supported: there is no exception handling in compiled "
                   "functions; raise an exception class or instance (raise ValueError(\"...\"))");
        s->value = test();
        if (is_kw("from"))
          error(peek(), "'raise ... from ...' is not supported (as in numba-cuda); raise the exception alone");
        return s;
      }
      if (t.text == "global" || t.text == "nonlocal" || t.text == "del" || t.text == "import" ||
          t.text == "from" || t.text == "yield")
        error(t, "the '" + std::string(t.text) + "' statement is not supported in compiled functions; " + kStatementsSupported);
    }
    SourceLoc loc = t.loc;
    ExprPtr first = test_list_star();
    if (is_op(":") ) {  // annotated assignment x: int32 = v
      ++p_;
      test();
      if (!is_op("=")) error(peek(), "a bare annotation is not supported; assign a value ('x: T = value')");
    }
    if (is_op("=")) {
      auto s = make(StmtKind::Assign, loc);
      s->targets.push_back(std::move(first));
      while (is_op("=")) {
        ++p_;
        ExprPtr v = test_list_star();
        s->targets.push_back(std::move(v));
      }
      s->value = std::move(s->targets.back());
      s->targets.pop_back();
      return s;
    }
    static const std::pair<std::string_view, BinOp> aug[] = {
        {"+=", BinOp::Add}, {"-=", BinOp::Sub}, {"*=", BinOp::Mul}, {"/=", BinOp::TrueDiv}, {"//=", BinOp::FloorDiv},
        {"%=", BinOp::Mod}, {"**=", BinOp::Pow}, {"<<=", BinOp::LShift}, {">>=", BinOp::RShift},
        {"&=", BinOp::BitAnd}, {"|=", BinOp::BitOr}, {"^=", BinOp::BitXor}};
    for (auto& [sym, op] : aug) {
      if (is_op(sym)) {
        auto s = make(StmtKind::AugAssign, loc);
        ++p_;
        s->aug_op = op;
        s->targets.push_back(std::move(first));
        s->value = test_list();
        return s;
      }
    }
    if (is_op("@=")) error(peek(), "the matrix-multiplication operator '@=' is not supported");
    auto s = make(StmtKind::Expr, loc);
    s->value = std::move(first);
    return s;
  }

  ExprPtr make_expr(ExprKind k, SourceLoc loc) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = loc;
    return e;
  }

  ExprPtr unsupported(SourceLoc loc, std::string what) {
    auto e = make_expr(ExprKind::Unsupported, loc);
    e->name = std::move(what);
    return e;
  }

  bool starts_expression() const {
    const Token& t = peek();
    if (t.kind == Tok::Name) {
      static const char* stops[] = {"in", "if", "else", "for", "and", "or", "is", "as", "from"};
      for (const char* s : stops)
        if (t.text == s) return false;
      return true;
    }
    if (t.kind == Tok::Number || t.kind == Tok::String) return true;
    if (t.kind == Tok::Op)
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" || t.text == "~" ||
             t.text == "*" || t.text == "...";
    return false;
  }

  // for-loop targets: names and tuples of names, without parentheses
  ExprPtr target_list() {
    SourceLoc loc = peek().loc;
    ExprPtr e = or_expr();
    if (!is_op(",")) return e;
    auto tup = make_expr(ExprKind::Tuple, loc);
    tup->kids.push_back(std::move(e));
    while (is_op(",")) {
      ++p_;
      if (is_kw("in")) break;
      tup->kids.push_back(or_expr());
    }
    return tup;
  }

  ExprPtr test_list_star() { return test_list(); }

  ExprPtr test_list() {
    SourceLoc loc = peek().loc;
    ExprPtr e = test();
    if (!is_op(",")) return e;
    auto tup = make_expr(ExprKind::Tuple, loc);
    tup->kids.push_back(std::move(e));
    while (is_op(",")) {
      ++p_;
      if (!starts_expression()) break;
      tup->kids.push_back(test());
    }
    return tup;
  }

  ExprPtr test() {
    DepthGuard g(*this);
    if (is_kw("lambda")) error(peek(), std::string("a lambda is not supported; ") + kExpressionsSupported);
    SourceLoc loc = peek().loc;
    ExprPtr body = or_test();
    if (is_kw("if")) {
      ++p_;
      ExprPtr cond = or_test();
      if (!is_kw("else")) error(peek(), "expected 'else' in conditional expression, found " + describe(peek()));
      ++p_;
      ExprPtr orelse = test();
      auto e = make_expr(ExprKind::IfExp, loc);
      e->kids.push_back(std::move(cond));
      e->kids.push_back(std::move(body));
      e->kids.push_back(std::move(orelse));
      return e;
    }
    return body;
  }

  ExprPtr or_test() {
    SourceLoc loc = peek().loc;
    ExprPtr e = and_test();
    while (is_kw("or")) {
      ++p_;
      auto n = make_expr(ExprKind::BoolOp, loc);
      n->is_and = false;
      n->kids.push_back(std::move(e));
      n->kids.push_back(and_test());
      e = std::move(n);
    }
    return e;
  }

  ExprPtr and_test() {
    SourceLoc loc = peek().loc;
    ExprPtr e = not_test();
    while (is_kw("and")) {
      ++p_;
      auto n = make_expr(ExprKind::BoolOp, loc);
      n->is_and = true;
      n->kids.push_back(std::move(e));
      n->kids.push_back(not_test());
      e = std::move(n);
    }
    return e;
  }

  ExprPtr not_test() {
    DepthGuard g(*this);
    if (is_kw("not")) {
      SourceLoc loc = peek().loc;
      ++p_;
      auto n = make_expr(ExprKind::Unary, loc);
      n->unop = UnaryOp::Not;
      n->kids.push_back(not_test());
      return n;
    }
    return comparison();
  }

  bool comp_op(CmpOp& op) {
    const Token& t = peek();
    if (t.kind == Tok::Op) {
      static const std::pair<std::string_view, CmpOp> ops[] = {{"<", CmpOp::Lt}, {"<=", CmpOp::Le}, {">", CmpOp::Gt},
                                                                {">=", CmpOp::Ge}, {"==", CmpOp::Eq}, {"!=", CmpOp::Ne}};
      for (auto& [s, o] : ops)
        if (t.text == s) { op = o; ++p_; return true; }
      return false;
    }
    if (is_kw("in")) { op = CmpOp::In; ++p_; return true; }
    if (is_kw("not") && is_kw("in", 1)) { op = CmpOp::NotIn; p_ += 2; return true; }
    if (is_kw("is")) {
      ++p_;
      op = CmpOp::Is;
      if (is_kw("not")) { ++p_; op = CmpOp::IsNot; }
      return true;
    }
    return false;
  }

  ExprPtr comparison() {
    SourceLoc loc = peek().loc;
    ExprPtr e = or_expr();
    CmpOp op;
    if (!comp_op(op)) return e;
    auto n = make_expr(ExprKind::Compare, loc);
    n->kids.push_back(std::move(e));
    do {
      n->cmp_ops.push_back(op);
      n->kids.push_back(or_expr());
    } while (comp_op(op));
    return n;
  }

  template <class Next>
  ExprPtr binary_level(std::initializer_list<std::pair<std::string_view, BinOp>> ops, Next next) {
    SourceLoc loc = peek().loc;
    ExprPtr e = (this->*next)();
    for (;;) {
      bool found = false;
      for (auto& [s, o] : ops) {
        if (is_op(s)) {
          SourceLoc oploc = peek().loc;
          ++p_;
          auto n = make_expr(ExprKind::Binary, loc);
          n->binop = o;
          n->kids.push_back(std::move(e));
          n->kids.push_back((this->*next)());
          (void)oploc;
          e = std::move(n);
          found = true;
          break;
        }
      }
      if (!found) return e;
    }
  }

  ExprPtr or_expr() { DepthGuard g(*this); return binary_level({{"|", BinOp::BitOr}}, &Parser::xor_expr); }
  ExprPtr xor_expr() { return binary_level({{"^", BinOp::BitXor}}, &Parser::and_expr); }
  ExprPtr and_expr() { return binary_level({{"&", BinOp::BitAnd}}, &Parser::shift_expr); }
  ExprPtr shift_expr() { return binary_level({{"<<", BinOp::LShift}, {">>", BinOp::RShift}}, &Parser::arith_expr); }
  ExprPtr arith_expr() { return binary_level({{"+", BinOp::Add}, {"-", BinOp::Sub}}, &Parser::term); }
  ExprPtr term() {
    if (is_op("@")) error(peek(), "the matrix-multiplication operator '@' is not supported");
    ExprPtr e = binary_level({{"*", BinOp::Mul}, {"/", BinOp::TrueDiv}, {"//", BinOp::FloorDiv}, {"%", BinOp::Mod}},
                             &Parser::factor);
    if (is_op("@")) error(peek(), "the matrix-multiplication operator '@' is not supported");
    return e;
  }

  ExprPtr factor() {
    DepthGuard g(*this);
    if (is_op("-") || is_op("+") || is_op("~")) {
      SourceLoc loc = peek().loc;
      UnaryOp op = is_op("-") ? UnaryOp::Neg : is_op("+") ? UnaryOp::Pos : UnaryOp::Invert;
      ++p_;
      ExprPtr operand = factor();
      // CPython folds "-<number>" into one constant: -9223372036854775808 is an int64 literal.
      if (op == UnaryOp::Neg && operand->kind == ExprKind::Int && operand->ival <= (std::uint64_t{1} << 63)) {
        operand->ival = ~operand->ival + 1;
        operand->int_unsigned = false;
        operand->loc = loc;
        return operand;
      }
      if (op == UnaryOp::Neg && operand->kind == ExprKind::Float) {
        operand->fval = -operand->fval;
        operand->loc = loc;
        return operand;
      }
      auto n = make_expr(ExprKind::Unary, loc);
      n->unop = op;
      n->kids.push_back(std::move(operand));
      return n;
    }
    return power();
  }

  ExprPtr power() {
    SourceLoc loc = peek().loc;
    ExprPtr e = atom_expr();
    if (is_op("**")) {
      ++p_;
      auto n = make_expr(ExprKind::Binary, loc);
      n->binop = BinOp::Pow;
      n->kids.push_back(std::move(e));
      n->kids.push_back(factor());
      return n;
    }
    return e;
  }

  ExprPtr atom_expr() {
    if (is_kw("await")) error(peek(), "'await' is not supported");
    ExprPtr e = atom();
    for (;;) {
      if (is_op("(")) {
        SourceLoc loc = e->loc;
        ++p_;
        auto call = make_expr(ExprKind::Call, loc);
        call->kids.push_back(std::move(e));  // callee first; the typer moves it out
        while (!is_op(")")) {
          if (is_op("**")) error(peek(), "argument unpacking ('**kwargs') is not supported");
          if (is_op("*")) {  // f(*t): spread by the typer once t's type (a tuple) is known
            if (!call->keywords.empty()) error(peek(), "argument unpacking ('*value') after a keyword argument is not supported");
            SourceLoc at = peek().loc;
            ++p_;
            ExprPtr star = unsupported(at, kStarredArgument);
            star->kids.push_back(test());
            call->kids.push_back(std::move(star));
            if (!is_op(",")) break;
            ++p_;
            continue;
          }
          if (peek().kind == Tok::Name && is_op("=", 1)) {
            call->keywords.emplace_back(t_[p_].text);
            p_ += 2;
          } else if (!call->keywords.empty()) {
            error(peek(), "positional argument follows keyword argument");
          }
          call->kids.push_back(test());
          if (is_kw("for")) error(peek(), "generator expressions are not supported");
          if (!is_op(",")) break;
          ++p_;
        }
        expect_op(")");
        e = std::move(call);
      } else if (is_op(".")) {
        ++p_;
        SourceLoc loc = e->loc;
        auto a = make_expr(ExprKind::Attribute, loc);
        a->name = expect_name();
        a->kids.push_back(std::move(e));
        e = std::move(a);
      } else if (is_op("[")) {
        SourceLoc loc = peek().loc;
        ++p_;
        auto s = make_expr(ExprKind::Subscript, loc);
        s->kids.push_back(std::move(e));
        if (is_op("]")) error(peek(), "empty subscript");
        s->kids.push_back(test_list_slice());
        expect_op("]");
        e = std::move(s);
      } else {
        return e;
      }
    }
  }

  // subscriptlist: subscript ("," subscript)* [","], where a subscript is a test or a slice
  // [test] ":" [test] [":" [test]]; more than one item makes a Tuple (as Python's a[i, j] does).
  ExprPtr test_list_slice() {
    SourceLoc loc = peek().loc;
    ExprPtr e = subscript();
    if (!is_op(",")) return e;
    auto tup = make_expr(ExprKind::Tuple, loc);
    tup->kids.push_back(std::move(e));
    while (is_op(",")) {
      ++p_;
      if (!starts_expression() && !is_op(":")) break;
      tup->kids.push_back(subscript());
    }
    return tup;
  }
  ExprPtr subscript() {
    SourceLoc loc = peek().loc;
    ExprPtr start = is_op(":") ? nullptr : test();
    if (!is_op(":")) return start;
    // A Slice's kids: start, stop and, when written, step; an omitted start or stop is None.
    auto s = make_expr(ExprKind::Slice, loc);
    auto part = [&]() {
      if (is_op(":") || is_op(",") || is_op("]")) return make_expr(ExprKind::NoneLit, peek().loc);
      return test();
    };
    ++p_;
    s->kids.push_back(start ? std::move(start) : make_expr(ExprKind::NoneLit, loc));
    s->kids.push_back(part());
    if (is_op(":")) {  // a[1::] has no step, as in Python's ast (and Numba's 2-part slice type)
      ++p_;
      if (!is_op(":") && !is_op(",") && !is_op("]")) s->kids.push_back(test());
    }
    return s;
  }

  ExprPtr number(const Token& t) {
    std::string s;
    s.reserve(t.text.size());
    for (char c : t.text)
      if (c != '_') s += c;
    bool imag = !s.empty() && (s.back() == 'j' || s.back() == 'J');
    if (imag) s.pop_back();
    bool is_float = false;
    bool prefixed = s.size() > 1 && s[0] == '0' && std::isalpha(static_cast<unsigned char>(s[1]));
    if (!prefixed)
      for (char c : s)
        if (c == '.' || c == 'e' || c == 'E') is_float = true;
    if (imag || is_float) {
      char* end = nullptr;
      double v = std::strtod(s.c_str(), &end);
      if (s.empty() || end != s.c_str() + s.size()) error(t, "invalid number literal '" + std::string(t.text) + "'");
      auto e = make_expr(imag ? ExprKind::Complex : ExprKind::Float, t.loc);
      if (imag) e->imag = v;
      else e->fval = v;
      return e;
    }
    int base = 10;
    std::size_t start = 0;
    if (prefixed) {
      char k = static_cast<char>(std::tolower(static_cast<unsigned char>(s[1])));
      base = k == 'x' ? 16 : k == 'o' ? 8 : k == 'b' ? 2 : 0;
      start = 2;
      if (base == 0) error(t, "invalid number literal '" + std::string(t.text) + "'");
    } else if (s.size() > 1 && s[0] == '0') {
      for (char c : s)
        if (c != '0') error(t, "leading zeros in a decimal integer literal are not permitted ('" + std::string(t.text) + "')");
    }
    if (start >= s.size()) error(t, "invalid number literal '" + std::string(t.text) + "'");
    std::uint64_t v = 0;
    for (std::size_t i = start; i < s.size(); ++i) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
      int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
      if (d >= base) error(t, "invalid number literal '" + std::string(t.text) + "'");
      if (v > (UINT64_MAX - static_cast<unsigned>(d)) / static_cast<unsigned>(base))
        error(t, "integer literal " + std::string(t.text) + " does not fit in 64 bits (Numba accepts up to 2**64 - 1)");
      v = v * static_cast<unsigned>(base) + static_cast<unsigned>(d);
    }
    auto e = make_expr(ExprKind::Int, t.loc);
    e->ival = static_cast<std::uint64_t>(v);
    e->int_unsigned = e->ival > static_cast<std::uint64_t>(INT64_MAX);
    return e;
  }

  ExprPtr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case Tok::Number: ++p_; return number(t);
      case Tok::String: {
        auto e = make_expr(ExprKind::Str, t.loc);
        for (; peek().kind == Tok::String; ++p_) {  // implicit concatenation
          StringLiteral piece = decode_string_literal(peek().text);
          if (!piece.error.empty()) return unsupported(peek().loc, "a string literal with " + piece.error);
          e->name += piece.value;
          if (piece.bytes) e->ival = 1;
          if (piece.formatted) e->ival = 2;
        }
        return e;
      }
      case Tok::Name: {
        ++p_;
        if (t.text == "True" || t.text == "False") {
          auto e = make_expr(ExprKind::Bool, t.loc);
          e->ival = t.text == "True";
          return e;
        }
        if (t.text == "None") return make_expr(ExprKind::NoneLit, t.loc);
        static const char* keywords[] = {"def", "class", "return", "if", "else", "elif", "while", "for", "in", "not",
                                         "and", "or", "is", "pass", "break", "continue", "import", "from", "as",
                                         "with", "try", "except", "finally", "raise", "global", "nonlocal", "del",
                                         "assert", "yield", "lambda", "async", "await"};
        for (const char* k : keywords)
          if (t.text == k) error(t, "unexpected keyword '" + std::string(t.text) + "'");
        auto e = make_expr(ExprKind::Name, t.loc);
        e->name = std::string(t.text);
        return e;
      }
      case Tok::Op: {
        if (t.text == "(") {
          ++p_;
          if (is_op(")")) {
            ++p_;
            return make_expr(ExprKind::Tuple, t.loc);
          }
          if (is_kw("yield")) error(peek(), "'yield' is not supported");
          ExprPtr e = test();
          if (is_kw("for")) error(peek(), "generator expressions are not supported");
          if (is_op(",")) {
            auto tup = make_expr(ExprKind::Tuple, t.loc);
            tup->kids.push_back(std::move(e));
            while (is_op(",")) {
              ++p_;
              if (is_op(")")) break;
              tup->kids.push_back(test());
            }
            e = std::move(tup);
          }
          expect_op(")");
          return e;
        }
        if (t.text == "[" || t.text == "{") {
          std::string what = t.text == "[" ? "a list" : "a dict or set";
          ++p_;
          // A plain list display keeps its items (a refused value still has types: numba's words for a list
          // given as a shared array's shape spell them); a comprehension or a starred item is skipped whole.
          bool plain = t.text == "[";
          int depth = 1;
          std::size_t k = 0;
          for (; depth > 0 && peek(k).kind != Tok::End; ++k) {
            const Token& u = peek(k);
            if (u.kind == Tok::Op && (u.text == "[" || u.text == "{" || u.text == "(")) ++depth;
            if (u.kind == Tok::Op && (u.text == "]" || u.text == "}" || u.text == ")")) --depth;
            bool item_start = k == 0 || is_op(",", k - 1);
            if (depth == 1 && (is_kw("for", k) || is_kw("async", k) || (item_start && (is_op("*", k) || is_op("**", k))) ||
                               is_op(":", k) || is_kw("lambda", k) || is_kw("yield", k)))
              plain = false;
          }
          ExprPtr list = unsupported(t.loc, what + " (only numbers and tuples of numbers are supported values)");
          if (plain) {
            while (!is_op("]")) {
              list->kids.push_back(test());
              if (!is_op(",")) break;
              ++p_;
            }
            expect_op("]");
          } else {
            p_ += k;
          }
          return list;
        }
        if (t.text == "...") { ++p_; return unsupported(t.loc, "Ellipsis ('...')"); }
        if (t.text == "*") error(t, "starred expressions are not supported");
        error(t, "unexpected " + describe(t) + "; " + kExpressionsSupported);
      }
      default: error(t, "unexpected " + describe(t));
    }
  }
};

}  // namespace

ModuleAst parse_module(std::string_view source, const std::string& file, int first_line) {
  Parser p(tokenize(source, file, first_line), file);
  return p.module();
}

}  // namespace cubridge::compiler
