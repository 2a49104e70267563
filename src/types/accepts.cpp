// Internal: which argument types a parameter type takes (include/cubridge/types/accepts.hpp).
#include "cubridge/types/accepts.hpp"

namespace cubridge {

bool accepts(const Type& param, const Type& arg) {
  if (param == arg) return true;
  if (!param.is_array() || !arg.is_array()) return false;
  if (param.dtype() != arg.dtype() || param.ndim() != arg.ndim()) return false;
  if (arg.readonly() && !param.readonly()) return false;  // the kernel would write a read-only array
  return param.layout() == 'A' || param.layout() == arg.layout();
}

}  // namespace cubridge
