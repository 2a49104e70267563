// Internal: the typer's stack budget (stack_budget.hpp). The bounds come from pthread_getattr_np, read
// once per thread: for the main thread glibc derives them from RLIMIT_STACK, for other threads they are
// the thread's own stack.
#include "stack_budget.hpp"

#include <pthread.h>

#include <cstdint>
#include <limits>

namespace cubridge::compiler::typer_detail {
namespace {

struct StackBounds {
  std::uintptr_t low = 0;  // the lowest usable address; 0 when unknown
  std::size_t size = 0;
};

StackBounds read_bounds() noexcept {
  StackBounds b;
  pthread_attr_t attr;
  if (::pthread_getattr_np(::pthread_self(), &attr) != 0) return b;
  void* addr = nullptr;
  std::size_t size = 0;
  if (::pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr) {
    std::size_t guard = 0;
    ::pthread_attr_getguardsize(&attr, &guard);
    b.low = reinterpret_cast<std::uintptr_t>(addr) + guard;
    b.size = size > guard ? size - guard : 0;
  }
  ::pthread_attr_destroy(&attr);
  return b;
}

const StackBounds& bounds() noexcept {
  thread_local const StackBounds b = read_bounds();
  return b;
}

}  // namespace

std::size_t stack_left() noexcept {
  const StackBounds& b = bounds();
  // The frame address, not a local's: under ASan's fake stacks a local may live on the heap.
  const auto here = reinterpret_cast<std::uintptr_t>(__builtin_frame_address(0));
  if (b.low == 0 || here < b.low || here - b.low > b.size) return std::numeric_limits<std::size_t>::max();
  return here - b.low;
}

std::size_t stack_reserve() noexcept {
  constexpr std::size_t kLargeReserve = std::size_t{256} << 10;
  const std::size_t size = bounds().size;
  return size != 0 && size / 4 < kLargeReserve ? size / 4 : kLargeReserve;
}

std::string too_deep_message() {
  return "this code nests too deeply for the compiler (" + std::to_string(stack_left() >> 10) +
         " KiB of the thread's stack left, " + std::to_string(stack_reserve() >> 10) +
         " KiB kept free): calls nest at most " + std::to_string(kMaxCallDepth) +
         " deep and each function's expressions 300 levels, but calls made deep inside expressions add up; "
         "split deep expressions into named parts or shorten the chain of calls";
}

}  // namespace cubridge::compiler::typer_detail
