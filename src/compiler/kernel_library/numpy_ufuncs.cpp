// Internal: NumPy ufunc loop resolution for kernels (see numpy_ufuncs.hpp).
#include "compiler/kernel_library/numpy_ufuncs.hpp"

#include "support/split_fields.hpp"

#include <algorithm>
#include <utility>

namespace cubridge::compiler {
namespace {

#include "compiler/kernel_library/numpy_ufunc_table.inc"

// The order of kSafeCast's rows and columns: NumPy's type characters of our scalar types.
constexpr std::string_view kChars = "?bBhHiIqQefdFD";

std::optional<Type> type_of_char(char c) {
  switch (c) {
    case '?': return Type::boolean();
    case 'b': return Type::integer(8, true);
    case 'B': return Type::integer(8, false);
    case 'h': return Type::integer(16, true);
    case 'H': return Type::integer(16, false);
    case 'i': return Type::integer(32, true);
    case 'I': return Type::integer(32, false);
    case 'q': return Type::integer(64, true);
    case 'Q': return Type::integer(64, false);
    case 'e': return Type::floating(16);
    case 'f': return Type::floating(32);
    case 'd': return Type::floating(64);
    case 'F': return Type::complex(64);
    case 'D': return Type::complex(128);
    default: return std::nullopt;
  }
}

char char_of_type(const Type& t) {
  if (t.is_bool()) return '?';
  if (t.is_int()) {
    static constexpr char s[] = {'b', 'h', 'i', 'q'}, u[] = {'B', 'H', 'I', 'Q'};
    int k = t.bits() == 8 ? 0 : t.bits() == 16 ? 1 : t.bits() == 32 ? 2 : 3;
    return t.is_signed() ? s[k] : u[k];
  }
  if (t.is_float()) return t.bits() == 16 ? 'e' : t.bits() == 32 ? 'f' : 'd';
  if (t.is_complex()) return t.bits() == 64 ? 'F' : 'D';
  return 0;
}

bool is_int_char(char c) { return std::string_view("bBhHiIqQ").find(c) != std::string_view::npos; }
bool is_inexact_char(char c) { return std::string_view("efdFD").find(c) != std::string_view::npos; }

// numba's ufunc_can_cast with casting='safe'.
bool can_cast(char from, char to, bool mixed) {
  if (mixed && is_int_char(from) && is_inexact_char(to)) return true;
  return kSafeCast[kChars.find(from)][kChars.find(to)] == '1';
}

const UfuncLoops* row_of(std::string_view ufunc) {
  for (const UfuncLoops& r : kUfuncLoops)
    if (ufunc == r.name) return &r;
  return nullptr;
}

// The loops of a row ("!ff->f" keeps its mark).
std::vector<std::string> loops_of(const UfuncLoops& r) { return compiler_detail::split_fields(r.loops, ' '); }

}  // namespace

std::optional<std::string_view> numpy_ufunc(std::string_view numpy_name) {
  for (const auto& [alias, name] : kUfuncAliases)
    if (numpy_name == alias) return std::string_view(name);
  if (const UfuncLoops* r = row_of(numpy_name)) return std::string_view(r->name);
  return std::nullopt;
}

int numpy_ufunc_inputs(std::string_view ufunc) {
  const UfuncLoops* r = row_of(ufunc);
  return r ? r->nin : 0;
}

std::optional<UfuncLoop> resolve_ufunc(std::string_view ufunc, std::span<const Type> args) {
  const UfuncLoops* r = row_of(ufunc);
  if (!r || static_cast<int>(args.size()) != r->nin) return std::nullopt;
  std::string chars;
  for (const Type& a : args) {
    char c = char_of_type(a);
    if (!c) return std::nullopt;
    chars += c;
  }
  bool mixed = std::any_of(chars.begin(), chars.end(), is_int_char) &&
               std::any_of(chars.begin(), chars.end(), is_inexact_char);
  for (const std::string& text : loops_of(*r)) {
    std::string_view loop = text;
    bool lowered = !loop.starts_with('!');
    if (!lowered) loop.remove_prefix(1);
    bool fits = true;
    for (std::size_t i = 0; i < chars.size() && fits; ++i) fits = can_cast(chars[i], loop[i], mixed);
    if (!fits) continue;
    UfuncLoop out;
    for (std::size_t i = 0; i < chars.size(); ++i) out.inputs.push_back(*type_of_char(loop[i]));
    out.output = *type_of_char(loop.back());
    out.signature = std::string(loop);
    out.lowered = lowered;
    return out;
  }
  return std::nullopt;
}

std::string ufunc_loop_list(std::string_view ufunc) {
  std::string s;
  if (const UfuncLoops* r = row_of(ufunc))
    for (const std::string& loop : loops_of(*r)) {
      if (loop.starts_with('!')) continue;
      s += (s.empty() ? "" : ", ") + loop;
    }
  return s;
}

std::string numpy_ufunc_names() {
  std::string s;
  for (const UfuncLoops& r : kUfuncLoops) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

}  // namespace cubridge::compiler
