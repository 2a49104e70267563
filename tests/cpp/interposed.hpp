// One entry of the driver's function table (driver::mutable_api_for_testing()) replaced for a scope: tests count or
// fail driver calls through it. The replacement reaches the driver's own function through `original`, which the
// scope sets before it interposes.
#pragma once

#include "driver/driver_api.hpp"

namespace cubridge::testing {

template <class Fn>
class Interposed {
 public:
  /// Puts `replacement` in `slot` (a member of the driver table) until the scope ends; `*original` gets what
  /// the slot held.
  Interposed(Fn& slot, Fn replacement, Fn* original) : slot_(slot), saved_(slot) {
    *original = saved_;
    slot_ = replacement;
  }
  ~Interposed() { slot_ = saved_; }
  Interposed(const Interposed&) = delete;
  Interposed& operator=(const Interposed&) = delete;

 private:
  Fn& slot_;
  Fn saved_;
};

}  // namespace cubridge::testing
