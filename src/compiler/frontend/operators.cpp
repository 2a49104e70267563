// Internal: Python's spellings of the binary operators (see operators.hpp).
#include "compiler/frontend/operators.hpp"

namespace cubridge::compiler {

std::string_view binop_symbol(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::TrueDiv: return "/";
    case BinOp::FloorDiv: return "//";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "**";
    case BinOp::LShift: return "<<";
    case BinOp::RShift: return ">>";
    case BinOp::BitAnd: return "&";
    case BinOp::BitOr: return "|";
    case BinOp::BitXor: return "^";
  }
  return "?";
}

}  // namespace cubridge::compiler
