// Internal: NumPy's fixed-width strings (Numba's CharSeq '|S<n>' and UnicodeCharSeq '<U<n>') in kernels
// (see function_typer.hpp). numba-cuda converts a bytes constant to a CharSeq and a str constant to a
// UnicodeCharSeq when one is stored into such an array element or record field: the characters are
// copied, cut at the element's width, and the rest of the element is zeroed. That store is what cubridge
// compiles; reading such an element as a value (numba's getitem, len, comparisons, concatenation) is
// refused by name.
#include "compiler/typing/function_typer.hpp"

namespace cubridge::compiler::typer_detail {

namespace {

constexpr std::int64_t kMaxConstantChars = 1 << 16;

std::string described(const Type& t) {
  return t.name() + (t.bits() == 8 ? " (numba's CharSeq: a fixed-width byte string)"
                                   : " (numba's UnicodeCharSeq: a fixed-width UTF-32 string)");
}

}  // namespace

void FunctionTyper::char_seq_store(Stmt& s) {
  Expr& text = *s.value;
  const bool bytes = text.ival == 1;
  if (text.ival == 2)
    error(text.loc, "an f-string with placeholders is not a constant; only a bytes or str constant can be stored "
                    "into a fixed-width string element");
  Type stored;
  for (auto& target : s.targets) {
    if (target->kind != ExprKind::Subscript && target->kind != ExprKind::Attribute)
      expr(text);  // a string bound to a name: refused as a value, with expr's message
    bind_target(*target, Type(), s.loc);  // types the element (or field) written, checking nothing of the value
    const Type& element = target->type;
    if (element.is_unknown()) return;  // typed in a later pass
    if (!element.is_char_seq())
      error(text.loc, std::string("cannot store a ") + (bytes ? "bytes" : "str") + " constant into a value of type " +
                          element.name() + "; string constants are stored only into elements or fields of "
                          "NumPy fixed-width strings ('|S<n>' takes bytes, '<U<n>' takes str)");
    if ((element.bits() == 8) != bytes)
      error(text.loc, std::string("cannot store a ") + (bytes ? "bytes" : "str") + " constant into " +
                          described(element) + "; numba converts only " +
                          (element.bits() == 8 ? "bytes (b'...')" : "str ('...')") + " to it");
    if (element.char_count() > kMaxConstantChars)
      error(text.loc, "cannot store a string constant into " + element.name() + ": cubridge writes such a store as "
                          "one constant of the element's width, and takes widths up to " +
                          std::to_string(kMaxConstantChars) + " characters");
    if (!stored.is_unknown() && stored != element)
      error(text.loc, "one string constant is stored into targets of different types (" + stored.name() + ", " +
                          element.name() + "); assign each separately");
    stored = element;
  }
  text.type = stored;  // the constant, as the element's type: cut or zero-padded to its width when emitted
}

void FunctionTyper::refuse_char_seq_value(const Expr& e, const Type& t) {
  error(e.loc, "a value of type " + described(t) + " cannot be read in a kernel by cubridge; numba-cuda's "
               "indexing, len(), comparisons and concatenation of fixed-width strings are not compiled: only stores "
               "of a constant into such an element (a[i] = " + (t.bits() == 8 ? "b'abc'" : "'abc'") + ") are");
}

}  // namespace cubridge::compiler::typer_detail
