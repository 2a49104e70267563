// Internal: NumPy's whole-array reductions (see numpy_reductions.hpp). Each follows numba-cuda's own
// implementation step for step, so results match bit for bit: the same walk over the elements in C order
// (np.nditer), the same accumulator type and initial value, the same early returns:
//   sum        accumulator of the result type (an integer widened to intp/uintp, a bool to intp), from 0
//   prod       the same result type as sum (numba's `c = dtype(1); c *= v` unifies to it), from 1
//   mean       accumulator of the dtype (float64 for integers and bools), divided by a.size
//   var        sum of (v - mean) ** 2 (as v - m times itself) from the integer 0, divided by a.size
//   std        var ** 0.5
//   min, max   ValueError on an empty array; the first NaN met is the result; else the first extreme
//   argmin/max ValueError on an empty array; the C-order index (intp) of the first NaN met, else of the
//              first extreme; complex numbers have no order (numba's typing refuses `<` on them)
//   nanmin/max ValueError on an empty array; NaNs skipped; an equal later value replaces the kept one
//   nansum     accumulator intp for integers, else the dtype, from 0; NaNs skipped (nanprod: from 1, *=)
//   nanmean    float64 sum and a count of the non-NaN values, np.divide(sum, count)
//   all, any   the first false (true) element decides; count_nonzero counts v != 0 in intp
#include "compiler/kernel_library/numpy_reductions.hpp"

#include <array>
#include <map>
#include <mutex>

namespace cubridge::compiler {

namespace {

/// One row per reduction: its np.<name>, and whether arrays offer it as a method too (a.sum(), numba's
/// overload_method(types.Array, name) / "array.sum"); amin and amax are np.min and np.max.
struct Reduction {
  std::string_view name;
  bool method;
};
constexpr std::array<Reduction, 19> kReductions = {{{"all", true},      {"any", true},     {"sum", true},
                                                    {"prod", true},     {"mean", true},    {"var", true},
                                                    {"std", true},      {"min", true},     {"max", true},
                                                    {"amin", false},    {"amax", false},   {"argmin", true},
                                                    {"argmax", true},   {"nanmin", false}, {"nanmax", false},
                                                    {"nansum", false},  {"nanprod", false}, {"nanmean", false},
                                                    {"count_nonzero", false}}};

/// numba's _expand_integer: the type np.sum of `dtype` returns.
std::string sum_type(const Type& dtype) {
  if (dtype.is_bool()) return "int64";
  if (dtype.is_int()) return dtype.is_signed() ? "int64" : "uint64";
  return dtype.name();
}

/// `def <fn>(a):` with the loop nest over every element in C order; `v` is the element inside `step`
/// (lines indented by the nest), `init` and `finish` run before and after.
std::string walk(const std::string& fn, int rank, const std::string& init, const std::string& step,
                 const std::string& finish) {
  std::string text = "def " + fn + "(a):\n" + init;
  std::string indent = "    ", index;
  for (int k = 0; k < rank; ++k) {
    std::string i = "i" + std::to_string(k);
    text += indent + "for " + i + " in range(a.shape[" + std::to_string(k) + "]):\n";
    indent += "    ";
    index += (k ? ", " : "") + i;
  }
  text += indent + "v = a[" + (rank ? index : "()") + "]\n";  // a 0-d array: its one element
  std::string body;
  for (std::size_t start = 0; start <= step.size();) {  // indent each line of the step
    std::size_t end = step.find('\n', start);
    if (end == std::string::npos) end = step.size();
    body += indent + step.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return text + body + finish + "\n\n";
}

std::string first_element(int rank) {
  std::string index;
  for (int k = 0; k < rank; ++k) index += k ? ", 0" : "0";
  return "a[" + (rank ? index : "()") + "]";
}

}  // namespace

bool is_numpy_reduction(std::string_view name) {
  for (const Reduction& r : kReductions)
    if (r.name == name) return true;
  return false;
}

bool is_array_reduction_method(std::string_view name) {
  for (const Reduction& r : kReductions)
    if (r.name == name) return r.method;
  return false;
}

std::string numpy_reduction_names(bool methods) {
  std::string s;
  for (const Reduction& r : kReductions)
    if (!methods || r.method) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

std::optional<ReductionSource> numpy_reduction_source(std::string_view name, int rank, const Type& dtype,
                                                      std::string& why) {
  if (!(dtype.is_int() || dtype.is_bool() || dtype.is_float() || dtype.is_complex()) ||
      (dtype.is_float() && dtype.bits() == 16)) {
    why = "its elements are " + dtype.name() + "; the reductions take arrays of integers, bools, float32, float64 "
          "and complex numbers";
    return std::nullopt;
  }
  const std::string n(name == "amin" ? "min" : name == "amax" ? "max" : name), d = dtype.name(),
                    r = std::to_string(rank);
  const bool is_float = dtype.is_float(), is_complex = dtype.is_complex();
  auto fn = [&](std::string_view what) { return "__np_" + std::string(what) + "__" + r + "__" + d; };
  const std::string header = "import math\nimport numpy as __np\n\n\n";
  const std::string nan_test = is_float ? "if not math.isnan(v):\n" : (is_complex ? "" : "if True:\n");
  if (is_complex && (n == "argmin" || n == "argmax")) {
    why = "complex numbers have no order: numba-cuda refuses np." + n + " of them too";
    return std::nullopt;
  }
  if (is_complex && (n == "var" || n == "std" || n == "min" || n == "max" || n.starts_with("nan"))) {
    why = "complex elements are not supported by np." + n + " in kernels yet (real numbers are)";
    return std::nullopt;
  }
  if (dtype.is_bool() && (n == "nansum" || n == "nanprod" || n == "nanmean")) {
    why = "numba-cuda keeps the bool dtype as np." + n + "'s accumulator; cubridge does not reproduce that";
    return std::nullopt;
  }
  auto mean_fn = [&] {
    std::string acc = dtype.is_int() || dtype.is_bool() ? "float64" : d;
    return walk(fn("mean"), rank, "    c = __np." + acc + "(0)\n", "c += v", "    return c / a.size");
  };
  auto var_fn = [&] {
    return walk(fn("var"), rank, "    m = " + fn("mean") + "(a)\n    ssd = 0\n", "val = v - m\nssd += val * val",
                "    return ssd / a.size");
  };
  std::string text;
  if (n == "all") {
    text = walk(fn(n), rank, "", "if not v:\n    return False", "    return True");
  } else if (n == "any") {
    text = walk(fn(n), rank, "", "if v:\n    return True", "    return False");
  } else if (n == "count_nonzero") {
    text = walk(fn(n), rank, "    c = 0\n", "if v != 0:\n    c += 1", "    return c");
  } else if (n == "sum") {
    text = walk(fn(n), rank, "    c = __np." + sum_type(dtype) + "(0)\n", "c += v", "    return c");
  } else if (n == "prod") {
    text = walk(fn(n), rank, "    c = __np." + sum_type(dtype) + "(1)\n", "c *= v", "    return c");
  } else if (n == "mean") {
    text = mean_fn();
  } else if (n == "var") {
    text = mean_fn() + var_fn();
  } else if (n == "std") {
    text = mean_fn() + var_fn() + "def " + fn(n) + "(a):\n    return " + fn("var") + "(a) ** 0.5\n\n";
  } else if (n == "min" || n == "max") {
    std::string word = n == "min" ? "minimum" : "maximum", op = n == "min" ? "<" : ">";
    std::string init = "    if a.size == 0:\n        raise ValueError(\"zero-size array to reduction operation " + word +
                       " which has no identity\")\n    m = " + first_element(rank) + "\n";
    std::string step = "if v " + op + " m:\n    m = v";
    if (is_float) {
      init += "    if math.isnan(m):\n        return m\n";
      step = "if math.isnan(v):\n    return v\n" + step;
    }
    text = walk(fn(n), rank, init, step, "    return m");
  } else if (n == "argmin" || n == "argmax") {
    std::string op = n == "argmin" ? "<" : ">";
    std::string init = "    if a.size == 0:\n        raise ValueError(\"attempt to get " + n + " of an empty sequence\")\n"
                       "    m = " + first_element(rank) + "\n    at = 0\n    idx = 0\n";
    std::string step = "if v " + op + " m:\n    m = v\n    at = idx\nidx += 1";
    if (is_float) {
      init += "    if math.isnan(m):\n        return 0\n";
      step = "if math.isnan(v):\n    return idx\n" + step;
    }
    text = walk(fn(n), rank, init, step, "    return at");
  } else if (n == "nanmin" || n == "nanmax") {
    std::string op = n == "nanmin" ? "<" : ">";
    std::string init = "    if a.size == 0:\n        raise ValueError(\"zero-size array to reduction operation not "
                       "possible\")\n    m = " + first_element(rank) + "\n";
    text = walk(fn(n), rank, init, nan_test + "    if not (m " + op + " v):\n        m = v", "    return m");
  } else if (n == "nansum" || n == "nanprod") {
    std::string acc = dtype.is_int() ? "int64" : d;
    std::string init = "    c = __np." + acc + (n == "nansum" ? "(0)\n" : "(1)\n");
    text = walk(fn(n), rank, init, nan_test + (n == "nansum" ? "    c += v" : "    c *= v"), "    return c");
  } else if (n == "nanmean") {
    text = walk(fn(n), rank, "    c = 0.0\n    count = 0\n", nan_test + "    c += v\n    count += 1",
                "    return __np.divide(c, count)");
  } else {
    why = "np." + n + " is not a reduction";
    return std::nullopt;
  }
  return ReductionSource{fn(n), header + text};
}

const ModuleAst& numpy_reduction_module(const ReductionSource& source) {
  static std::mutex lock;
  static std::map<std::string, ModuleAst, std::less<>> parsed;  // at most 19 reductions x ranks x dtypes
  std::lock_guard<std::mutex> hold(lock);
  auto it = parsed.find(source.function);
  if (it == parsed.end())
    it = parsed.emplace(source.function, parse_module(source.text, "<cubridge numpy reductions>")).first;
  return it->second;
}

}  // namespace cubridge::compiler
