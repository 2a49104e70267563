// One error family (include/cubridge/error.hpp): every exception cubridge throws is a cubridge::Error and
// still the std:: exception its callers caught before, with its message unchanged.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <type_traits>

#include "cubridge/array/errors.hpp"
#include "cubridge/compiler/compile.hpp"
#include "cubridge/compiler/linker.hpp"
#include "cubridge/compiler/nvrtc.hpp"
#include "cubridge/compiler/nvvm.hpp"
#include "cubridge/driver/error.hpp"
#include "cubridge/error.hpp"
#include "cubridge/kernel/argument_pack.hpp"
#include "cubridge/kernel/kernel_raise.hpp"
#include "cubridge/memory/out_of_memory.hpp"
#include "cubridge/types/signature.hpp"

namespace {

template <class E, class Std>
constexpr bool in_family = std::is_base_of_v<cubridge::Error, E> && std::is_base_of_v<Std, E>;

static_assert(in_family<cubridge::InvalidArgument, std::invalid_argument>);
static_assert(in_family<cubridge::RuntimeError, std::runtime_error>);
static_assert(in_family<cubridge::ArrayInterfaceError, std::invalid_argument>);
static_assert(in_family<cubridge::ExportError, std::invalid_argument>);
static_assert(in_family<cubridge::MaskNotSupported, std::logic_error>);
static_assert(in_family<cubridge::CudaError, std::runtime_error>);
static_assert(in_family<cubridge::DriverUnavailable, std::runtime_error>);
static_assert(in_family<cubridge::OutOfMemory, std::runtime_error>);
static_assert(in_family<cubridge::ArgumentTypeError, std::invalid_argument>);
static_assert(in_family<cubridge::KernelRaised, std::runtime_error>);
static_assert(in_family<cubridge::CompileError, std::invalid_argument>);
static_assert(in_family<cubridge::ToolkitError, std::runtime_error>);
static_assert(in_family<cubridge::LinkError, std::runtime_error>);

TEST(ErrorFamily, ABadSpellingIsCaughtAsEitherBaseWithItsMessage) {
  try {
    cubridge::parse_signature("void(float31)");
    FAIL() << "accepted";
  } catch (const cubridge::Error& e) {
    EXPECT_EQ(std::string(e.error_text()).rfind("signature 'void(float31)': unknown argument type 'float31'", 0), 0u)
        << e.error_text();
    EXPECT_NE(dynamic_cast<const std::invalid_argument*>(&e), nullptr);
  }
  EXPECT_THROW(cubridge::parse_signature("void(float31)"), std::invalid_argument);
}

}  // namespace
