// Internal: tuple trees and the CPU/GPU buffer layouts of the classic convention.
#include "cubridge/xla/tuple_layout.hpp"

#include <stdexcept>
#include <string>
#include "cubridge/error.hpp"

namespace cubridge::xla {
namespace {
std::string path_text(std::span<const std::size_t> path) {
  std::string s = "{";
  for (std::size_t i = 0; i < path.size(); ++i) s += (i ? ", " : "") + std::to_string(path[i]);
  return s + "}";
}
}  // namespace

TupleTree TupleTree::tuple(std::vector<TupleTree> children) {
  TupleTree t;
  t.leaf_ = false;
  t.children_ = std::move(children);
  return t;
}

TupleTree TupleTree::from_preorder(std::span<const std::int32_t> codes, std::size_t& pos, int depth) {
  if (depth > kMaxDepth)
    throw cubridge::InvalidArgument("tuple layout: tuples nest more than " + std::to_string(kMaxDepth) +
                                " deep at position " + std::to_string(pos));
  if (pos >= codes.size()) {
    throw cubridge::InvalidArgument("tuple layout: the codes end at position " + std::to_string(pos) +
                                " inside a tree (a tuple announced more children than follow)");
  }
  std::int32_t code = codes[pos++];
  if (code == -1) return leaf();
  if (code < -1) {
    throw cubridge::InvalidArgument("tuple layout: code " + std::to_string(code) + " at position " +
                                std::to_string(pos - 1) + " is not -1 (leaf) or a child count ≥ 0");
  }
  if (static_cast<std::size_t>(code) > codes.size() - pos) {
    throw cubridge::InvalidArgument("tuple layout: a tuple of " + std::to_string(code) +
                                " children at position " + std::to_string(pos - 1) + " but only " +
                                std::to_string(codes.size() - pos) + " codes follow");
  }
  std::vector<TupleTree> children;
  children.reserve(static_cast<std::size_t>(code));
  for (std::int32_t i = 0; i < code; ++i) children.push_back(from_preorder(codes, pos, depth + 1));
  return tuple(std::move(children));
}

const TupleTree& TupleTree::child(std::size_t i) const {
  if (leaf_ || i >= children_.size()) {
    throw std::out_of_range("tuple index " + std::to_string(i) + " is out of range for " +
                            (leaf_ ? std::string("a leaf (not a tuple)")
                                   : "a tuple of " + std::to_string(children_.size())));
  }
  return children_[i];
}

std::size_t TupleTree::leaf_count() const noexcept {
  if (leaf_) return 1;
  std::size_t n = 0;
  for (const TupleTree& c : children_) n += c.leaf_count();
  return n;
}

std::size_t TupleTree::pointer_slots() const noexcept {
  if (leaf_) return 0;
  std::size_t n = children_.size();
  for (const TupleTree& c : children_) n += c.pointer_slots();
  return n;
}

void TupleTree::append_preorder(std::vector<std::int32_t>& out) const {
  out.push_back(leaf_ ? -1 : static_cast<std::int32_t>(children_.size()));
  for (const TupleTree& c : children_) c.append_preorder(out);
}

std::size_t TupleTree::leaf_index(std::span<const std::size_t> path) const {
  const TupleTree* node = this;
  std::size_t index = 0;
  for (std::size_t depth = 0; depth < path.size(); ++depth) {
    if (node->leaf_ || path[depth] >= node->children_.size()) {
      throw std::out_of_range("tuple path " + path_text(path) + ": index " +
                              std::to_string(path[depth]) + " at depth " + std::to_string(depth) +
                              (node->leaf_ ? " goes into a leaf"
                                           : " is out of range for a tuple of " +
                                                 std::to_string(node->children_.size())));
    }
    for (std::size_t i = 0; i < path[depth]; ++i) index += node->children_[i].leaf_count();
    node = &node->children_[path[depth]];
  }
  if (!node->leaf_) {
    throw std::out_of_range("tuple path " + path_text(path) + " ends at a tuple of " +
                            std::to_string(node->children_.size()) + ", not at a buffer");
  }
  return index;
}

void ShapeTree::check() const {
  if (structure.leaf_count() != leaves.size()) {
    throw cubridge::InvalidArgument("shape tree: the structure has " +
                                std::to_string(structure.leaf_count()) + " leaves but " +
                                std::to_string(leaves.size()) + " shapes were given");
  }
}

CallLayout CallLayout::flat(std::size_t operands, std::size_t results) {
  CallLayout l;
  l.operands.assign(operands, TupleTree::leaf());
  if (results != 1) l.result = TupleTree::tuple(std::vector<TupleTree>(results, TupleTree::leaf()));
  return l;
}

CallLayout CallLayout::decode(std::span<const std::int32_t> codes) {
  if (codes.empty() || codes[0] < 0) {
    throw cubridge::InvalidArgument("tuple layout: the first code must be the operand count (≥ 0), got " +
                                (codes.empty() ? std::string("nothing") : std::to_string(codes[0])));
  }
  CallLayout l;
  std::size_t pos = 1;
  for (std::int32_t i = 0; i < codes[0]; ++i) l.operands.push_back(TupleTree::from_preorder(codes, pos));
  l.result = TupleTree::from_preorder(codes, pos);
  if (pos != codes.size()) {
    throw cubridge::InvalidArgument("tuple layout: " + std::to_string(codes.size() - pos) +
                                " codes follow the result's tree");
  }
  return l;
}

std::vector<std::int32_t> CallLayout::encode() const {
  std::vector<std::int32_t> out{static_cast<std::int32_t>(operands.size())};
  for (const TupleTree& t : operands) t.append_preorder(out);
  result.append_preorder(out);
  return out;
}

std::size_t CallLayout::operand_leaves() const noexcept {
  std::size_t n = 0;
  for (const TupleTree& t : operands) n += t.leaf_count();
  return n;
}

std::size_t CallLayout::gpu_operand_index(std::size_t operand, std::span<const std::size_t> path) const {
  if (operand >= operands.size()) {
    throw std::out_of_range("operand " + std::to_string(operand) + " is out of range: the call has " +
                            std::to_string(operands.size()) + " operands");
  }
  std::size_t base = 0;
  for (std::size_t i = 0; i < operand; ++i) base += operands[i].leaf_count();
  return base + operands[operand].leaf_index(path);
}

std::size_t CallLayout::gpu_result_index(std::span<const std::size_t> path) const {
  return operand_leaves() + result.leaf_index(path);
}

void** CpuPointerTables::reserve(std::size_t n) {
  if (n <= kInline) return inline_;
  heap_.assign(n, nullptr);
  return heap_.data();
}

// Writes `tree`'s pointer array into `free` (advancing it) and returns it; leaves are taken in order.
void** CpuPointerTables::fill(const TupleTree& tree, std::span<void* const> leaves, std::size_t& leaf,
                              void**& free) {
  void** table = free;
  free += tree.size();
  for (std::size_t i = 0; i < tree.size(); ++i) {
    const TupleTree& c = tree.child(i);
    table[i] = c.is_leaf() ? leaves[leaf++] : static_cast<void*>(fill(c, leaves, leaf, free));
  }
  return table;
}

void CpuPointerTables::build(const CallLayout& layout, std::span<void* const> operand_leaves,
                             std::span<void* const> result_leaves) {
  if (operand_leaves.size() != layout.operand_leaves() || result_leaves.size() != layout.result_leaves()) {
    throw cubridge::InvalidArgument(
        "tuple layout: it describes " + std::to_string(layout.operand_leaves()) + " operand and " +
        std::to_string(layout.result_leaves()) + " result buffers but the call has " +
        std::to_string(operand_leaves.size()) + " and " + std::to_string(result_leaves.size()));
  }
  std::size_t slots = layout.operands.size() + layout.result.pointer_slots();
  for (const TupleTree& t : layout.operands) slots += t.pointer_slots();
  void** free = reserve(slots);
  in_ = free;
  free += layout.operands.size();
  std::size_t leaf = 0;
  for (std::size_t i = 0; i < layout.operands.size(); ++i) {
    const TupleTree& t = layout.operands[i];
    in_[i] = t.is_leaf() ? operand_leaves[leaf++] : static_cast<void*>(fill(t, operand_leaves, leaf, free));
  }
  std::size_t rleaf = 0;
  out_ = layout.result.is_leaf() ? result_leaves[0]
                                 : static_cast<void*>(fill(layout.result, result_leaves, rleaf, free));
}

}  // namespace cubridge::xla
