// Tuples of a custom call's operands and results, laid out as the classic convention draws them: on the
// CPU a tuple is an array of pointers (nested tuples nested), on the GPU `buffers` is the flat list of
// every leaf in pre-order, operands then results. Implements: XLA "Custom calls" § "Passing tuples".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "cubridge/xla/shape.hpp"

namespace cubridge::xla {

/// The structure of one operand or result: a leaf (one buffer) or a tuple of trees. Its compact form
/// is pre-order codes: -1 for a leaf, k ≥ 0 for a tuple of k children.
class TupleTree {
 public:
  static TupleTree leaf() { return TupleTree(); }
  static TupleTree tuple(std::vector<TupleTree> children);
  /// How deeply tuples may nest in codes read from outside (XLA's own tuples nest a few levels; a chain
  /// of a million 1s must end in an error, not a stack overflow).
  static constexpr int kMaxDepth = 64;
  /// Reads one tree from the front of `codes`, advancing `pos`; throws std::invalid_argument naming
  /// the position when the codes end early, hold a code below -1 or nest deeper than kMaxDepth.
  static TupleTree from_preorder(std::span<const std::int32_t> codes, std::size_t& pos, int depth = 0);

  bool is_leaf() const noexcept { return leaf_; }
  std::size_t size() const noexcept { return children_.size(); }
  const TupleTree& child(std::size_t i) const;
  std::size_t leaf_count() const noexcept;
  /// Tuple nodes' children, summed over the tree (the pointer slots the CPU layout needs).
  std::size_t pointer_slots() const noexcept;
  void append_preorder(std::vector<std::int32_t>& out) const;
  /// The pre-order index among this tree's leaves of the leaf at `path` (an index per tuple level);
  /// throws std::out_of_range naming the path and the tuple's size when it leads nowhere or stops at a tuple.
  std::size_t leaf_index(std::span<const std::size_t> path) const;

 private:
  TupleTree() = default;
  bool leaf_ = true;
  std::vector<TupleTree> children_;
};

/// A tuple tree whose leaves have shapes (pre-order): maps a path to its leaf's shape.
struct ShapeTree {
  TupleTree structure = TupleTree::leaf();
  std::vector<Shape> leaves;
  /// Throws std::invalid_argument when the leaf count disagrees with the structure.
  void check() const;
  const Shape& at(std::span<const std::size_t> path) const { return leaves.at(structure.leaf_index(path)); }
};

/// The tuple structure of a whole call: every operand's tree and the result's tree.
struct CallLayout {
  std::vector<TupleTree> operands;
  TupleTree result = TupleTree::leaf();

  /// Plain arrays in, one plain result (or, with `results` > 1, a flat tuple of them).
  static CallLayout flat(std::size_t operands, std::size_t results);
  /// From codes [operand count, each operand's pre-order codes..., the result's codes]; throws
  /// std::invalid_argument when they are malformed or do not consume exactly `codes`.
  static CallLayout decode(std::span<const std::int32_t> codes);
  std::vector<std::int32_t> encode() const;

  std::size_t operand_leaves() const noexcept;
  std::size_t result_leaves() const noexcept { return result.leaf_count(); }
  /// GPU: the index into `buffers` of a leaf of operand `operand` (path inside it).
  std::size_t gpu_operand_index(std::size_t operand, std::span<const std::size_t> path) const;
  /// GPU: the index into `buffers` of the result leaf at `path`.
  std::size_t gpu_result_index(std::span<const std::size_t> path) const;
};

/// The CPU convention's `out` and `in` built from flat leaf pointers (pre-order, as XLA's typed FFI
/// passes them). Allocates nothing when there are no tuples and at most kInline pointers.
class CpuPointerTables {
 public:
  static constexpr std::size_t kInline = 32;
  CpuPointerTables() = default;
  CpuPointerTables(const CpuPointerTables&) = delete;  // in() points into this object
  CpuPointerTables& operator=(const CpuPointerTables&) = delete;
  /// `operand_leaves` / `result_leaves` are the leaf data pointers in pre-order; throws
  /// std::invalid_argument when their counts disagree with `layout`.
  void build(const CallLayout& layout, std::span<void* const> operand_leaves,
             std::span<void* const> result_leaves);
  const void** in() noexcept { return const_cast<const void**>(in_); }
  void* out() const noexcept { return out_; }

 private:
  void** reserve(std::size_t n);
  void** fill(const TupleTree& tree, std::span<void* const> leaves, std::size_t& leaf, void**& free);
  void* inline_[kInline];
  std::vector<void*> heap_;
  void** in_ = nullptr;
  void* out_ = nullptr;
};

}  // namespace cubridge::xla
