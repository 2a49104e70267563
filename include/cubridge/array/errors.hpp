// The array layer's exceptions beyond std::invalid_argument / std::out_of_range.
// Implements: CAI v3's value rules (one error for all of them), CAI v3 "mask" (operations that cannot honour one refuse clearly) and the DLPack rule
// that a producer which cannot export raises BufferError.
#pragma once

#include <stdexcept>
#include "cubridge/error.hpp"

namespace cubridge {

/// An operation cannot honour the array's mask. Python: NotImplementedError.
class MaskNotSupported : public std::logic_error, public Error {
 public:
  using std::logic_error::logic_error;
};

/// A CUDA Array Interface description breaks one of the interface's rules (a value out of range, parts
/// that disagree). The message starts with "__cuda_array_interface__['<key>']" and names the value and
/// what would be accepted. Python: ValueError.
class ArrayInterfaceError : public std::invalid_argument, public Error {
 public:
  using std::invalid_argument::invalid_argument;
};

/// The array cannot be described in the requested exchange format. Python: BufferError.
class ExportError : public std::invalid_argument, public Error {
 public:
  using std::invalid_argument::invalid_argument;
};

}  // namespace cubridge
