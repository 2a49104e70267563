// Internal: NumPy's datetime64 and timedelta64 in registers (see emitter.hpp), as numba-cuda lowers its
// NPDatetime/NPTimedelta: an i64 count of the unit, NaT being INT64_MIN. Operands are brought to the result's
// unit by integer factors (datetime_rules.hpp); an operation with a NaT operand gives NaT, a comparison with
// one gives False (True for !=). Facts from numba-cuda's np/npdatetime.py; the code is ours.
#include <stdexcept>
#include <string>

#include "compiler/lowering/emitter.hpp"
#include "compiler/typing/datetime_rules.hpp"

namespace cubridge::compiler {
namespace {

constexpr const char* kNaT = "-9223372036854775808";

std::int64_t factor_between(const Type& from, std::uint8_t to) {
  const auto f = datetime_unit_factor(from.datetime_unit(), to);
  if (!f)  // the typer admits only operations whose units convert by an integer factor
    throw std::logic_error("datetime lowering: " + from.name() + " has no integer factor to unit code " +
                           std::to_string(to));
  return *f;
}

}  // namespace

std::string FunctionEmitter::datetime_scaled(const Value& v, std::uint8_t unit) {
  const std::int64_t f = factor_between(v.t, unit);
  return f == 1 ? v.v : ins("mul i64 " + v.v + ", " + std::to_string(f));
}

std::string FunctionEmitter::datetime_not_nat(const Value& a, const Value* b) {
  std::string ok = ins("icmp ne i64 " + a.v + ", " + kNaT);
  if (b == nullptr) return ok;
  return ins("and i1 " + ok + ", " + ins("icmp ne i64 " + b->v + ", " + kNaT));
}

Value FunctionEmitter::datetime_binary(BinOp op, const Value& a, const Value& b, const Type& result) {
  if (op == BinOp::Mul) {  // timedelta * int64 or int64 * timedelta: NaT stays NaT
    const Value& td = a.t.is_timedelta() ? a : b;
    const Value& n = a.t.is_timedelta() ? b : a;
    std::string product = ins("mul i64 " + td.v + ", " + n.v);
    return {ins("select i1 " + datetime_not_nat(td) + ", i64 " + product + ", i64 " + kNaT), result};
  }
  const std::uint8_t unit = result.datetime_unit();
  std::string x = datetime_scaled(a, unit), y = datetime_scaled(b, unit);
  std::string r = ins(std::string(op == BinOp::Add ? "add" : "sub") + " i64 " + x + ", " + y);
  return {ins("select i1 " + datetime_not_nat(a, &b) + ", i64 " + r + ", i64 " + kNaT), result};
}

std::string FunctionEmitter::datetime_compare(CmpOp op, const Value& a, const Value& b) {
  std::string x = a.v, y = b.v;
  if (a.t.is_datetime()) {  // both to the finer unit
    const std::uint8_t unit = finer_datetime_unit(a.t.datetime_unit(), b.t.datetime_unit());
    x = datetime_scaled(a, unit);
    y = datetime_scaled(b, unit);
  } else if (datetime_unit_factor(a.t.datetime_unit(), b.t.datetime_unit())) {  // the coarser to the finer
    x = datetime_scaled(a, b.t.datetime_unit());
  } else {
    y = datetime_scaled(b, a.t.datetime_unit());
  }
  const char* pred = op == CmpOp::Lt ? "slt" : op == CmpOp::Le ? "sle" : op == CmpOp::Gt ? "sgt"
                   : op == CmpOp::Ge ? "sge" : op == CmpOp::Eq ? "eq" : "ne";
  std::string c = ins(std::string("icmp ") + pred + " i64 " + x + ", " + y);
  return ins("select i1 " + datetime_not_nat(a, &b) + ", i1 " + c + ", i1 " + (op == CmpOp::Ne ? "true" : "false"));
}

}  // namespace cubridge::compiler
