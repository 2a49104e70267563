// Which argument types a parameter type takes, as a launch of a kernel compiled for several signatures
// picks one (numba-cuda's dispatcher picks the same way for arrays): the same element type and rank;
// a parameter of layout 'A' takes any layout, a contiguous one only its own; a read-only array only
// where the parameter is read-only too. Other types take only themselves.
// Implements: numba-cuda's Dispatcher signature matching for array arguments (no numeric conversions).
#pragma once

#include "cubridge/types/type.hpp"

namespace cubridge {

/// Whether a parameter of type `param` takes an argument of type `arg`.
bool accepts(const Type& param, const Type& arg);

}  // namespace cubridge
