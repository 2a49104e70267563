// Internal: constants handed over as text by the Python layer (module globals and closure cells).
#include <cerrno>
#include <cstdlib>
#include <string>

#include "cubridge/compiler/compile.hpp"
#include "cubridge/error.hpp"

namespace cubridge::compiler {

namespace {

struct Reader {
  std::string_view text;
  std::size_t pos = 0;
  std::string next() {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    std::size_t start = pos;
    while (pos < text.size() && text[pos] != ' ') ++pos;
    return std::string(text.substr(start, pos - start));
  }
};

[[noreturn]] void bad(std::string_view type, std::string_view text, const std::string& why) {
  throw cubridge::InvalidArgument("constant of type " + std::string(type) + " from text '" + std::string(text) + "': " + why);
}

Constant read(const Type& t, Reader& r, std::string_view type_name) {
  Constant c;
  c.type = t;
  if (t.is_tuple()) {
    for (const Type& e : t.elements()) c.elements.push_back(read(e, r, type_name));
    return c;
  }
  if (t.is_none()) return c;  // None bound to a global or closure name (no text)
  auto number = [&]() {
    std::string tok = r.next();
    if (tok.empty()) bad(type_name, r.text, "too few values");
    return tok;
  };
  if (t.is_int() || t.is_bool() || t.is_datetime() || t.is_timedelta()) {  // datetimes: the int64 count
    std::string tok = number();
    errno = 0;
    char* end = nullptr;
    if (t.is_int() && !t.is_signed()) {
      c.u = std::strtoull(tok.c_str(), &end, 10);
      c.i = static_cast<std::int64_t>(c.u);
    } else {
      c.i = std::strtoll(tok.c_str(), &end, 10);
      c.u = static_cast<std::uint64_t>(c.i);
    }
    if (errno || end != tok.c_str() + tok.size()) bad(type_name, r.text, "'" + tok + "' is not a 64-bit integer");
    return c;
  }
  auto real = [&]() {
    std::string tok = number();
    char* end = nullptr;
    double v = std::strtod(tok.c_str(), &end);
    if (end != tok.c_str() + tok.size()) bad(type_name, r.text, "'" + tok + "' is not a float");
    return v;
  };
  if (t.is_float()) {
    c.re = real();
    return c;
  }
  if (t.is_complex()) {
    c.re = real();
    c.im = real();
    return c;
  }
  bad(type_name, r.text, "only numbers and tuples of numbers can be constants");
}

}  // namespace

Constant constant_from_text(std::string_view type_name, std::string_view text) {
  auto t = parse_type_name(type_name);
  if (!t) throw cubridge::InvalidArgument("constant: unknown type '" + std::string(type_name) + "'; accepted: " + accepted_type_names());
  Reader r{text};
  Constant c = read(*t, r, type_name);
  if (!r.next().empty()) bad(type_name, text, "too many values");
  return c;
}

}  // namespace cubridge::compiler
