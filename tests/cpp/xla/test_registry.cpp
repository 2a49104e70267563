// The registry: the macro registers by (name, platform) with the API version taken from the signature;
// duplicates, unknown platforms and signature/platform mismatches are clear errors.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "cubridge/xla/custom_call.h"
#include "cubridge/xla/registry.hpp"

using namespace cubridge::xla;

extern "C" void registry_test_cpu_v1(void*, const void**) {}
extern "C" void registry_test_cpu_v3(void*, const void**, const char*, size_t, XlaCustomCallStatus*) {}
extern "C" void registry_test_gpu_v2(CUstream_st*, void**, const char*, size_t, XlaCustomCallStatus*) {}
extern "C" void registry_test_mismatch(CUstream_st*, void**, const char*, size_t) {}
extern "C" void registry_test_unknown(void*, const void**) {}

CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(registry_test_cpu_v1, "Host");
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(registry_test_cpu_v3, "Host");
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET_WITH_FLAGS(registry_test_gpu_v2, "CUDA",
                                                CUBRIDGE_XLA_TARGET_NOT_COMMAND_BUFFER_COMPATIBLE);
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(registry_test_mismatch, "Host");
CUBRIDGE_REGISTER_CUSTOM_CALL_TARGET(registry_test_unknown, "TPU");

TEST(Registry, MacroRegistersWithTheSignaturesApiVersion) {
  auto v1 = Registry::global().find("registry_test_cpu_v1", Platform::host);
  ASSERT_TRUE(v1);
  EXPECT_EQ(v1->api_version, 1);
  EXPECT_EQ(reinterpret_cast<void*>(v1->function), reinterpret_cast<void*>(&registry_test_cpu_v1));
  EXPECT_EQ(Registry::global().find("registry_test_cpu_v3", Platform::host)->api_version, 3);
  auto gpu = Registry::global().find("registry_test_gpu_v2", Platform::cuda);
  ASSERT_TRUE(gpu);
  EXPECT_EQ(gpu->api_version, 2);
  EXPECT_FALSE(gpu->command_buffer_compatible);
  EXPECT_FALSE(Registry::global().find("registry_test_gpu_v2", Platform::host));
  EXPECT_EQ(cubridge_xla_target_registry_test_cpu_v3.api_version, 3);
}

TEST(Registry, MacroFailuresAreKeptWithTheirReason) {
  auto rejected = Registry::global().rejected();
  auto has = [&](const std::string& text) {
    for (const auto& r : rejected) {
      if (r == text) return true;
    }
    return false;
  };
  EXPECT_TRUE(has("xla target 'registry_test_mismatch': its signature is a GPU one but the platform is "
                  "'Host': register it for 'CUDA'"));
  EXPECT_TRUE(has("xla target 'registry_test_unknown': platform code 0 is not known: use \"Host\" or "
                  "\"CUDA\""));
  EXPECT_FALSE(Registry::global().find("registry_test_mismatch", Platform::host));
}

TEST(Registry, DuplicatesAreRejectedByTheCEntryPoint) {
  char error[256];
  EXPECT_EQ(cubridge_xla_register_target(&cubridge_xla_target_registry_test_cpu_v1, error, sizeof error), -1);
  EXPECT_STREQ(error,
               "xla target 'registry_test_cpu_v1' is already registered for Host: a (name, platform) "
               "pair can be registered once");
  char tiny[8];
  EXPECT_EQ(cubridge_xla_register_target(&cubridge_xla_target_registry_test_cpu_v1, tiny, sizeof tiny), -1);
  EXPECT_STREQ(tiny, "xla tar");
  EXPECT_EQ(cubridge_xla_register_target(nullptr, nullptr, 0), -1);
}

TEST(Registry, SameNameOnAnotherPlatformIsAllowed) {
  Target t;
  t.name = "registry_test_cpu_v1";
  t.platform = Platform::cuda;
  t.api_version = 1;
  t.function = reinterpret_cast<void (*)(void)>(&registry_test_mismatch);
  EXPECT_NO_THROW(Registry::global().add(t));
}

TEST(Registry, BadTargetsSayWhy) {
  Target t;
  t.name = "registry_test_bad";
  try {
    Registry::global().add(t);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "xla target 'registry_test_bad': the function pointer is null");
  }
  t.function = reinterpret_cast<void (*)(void)>(&registry_test_cpu_v1);
  t.api_version = 4;
  try {
    Registry::global().add(t);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "xla target 'registry_test_bad': api_version 4 is not one of 1, 2, 3 (the classic "
                 "custom-call API versions)");
  }
  t.name.clear();
  EXPECT_THROW(Registry::global().add(t), std::invalid_argument);
}

TEST(Registry, PlatformNames) {
  EXPECT_EQ(parse_platform("Host"), Platform::host);
  EXPECT_EQ(parse_platform("cpu"), Platform::host);
  EXPECT_EQ(parse_platform("CUDA"), Platform::cuda);
  EXPECT_EQ(parse_platform("gpu"), Platform::cuda);
  try {
    parse_platform("ROCM");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "xla platform 'ROCM' is not known: use 'Host' (or 'cpu') or 'CUDA' (or 'cuda', 'gpu')");
  }
}

TEST(Registry, DescriptorVersionAndFlagsAreChecked) {
  CubridgeXlaTargetDescriptor d = cubridge_xla_target_registry_test_cpu_v1;
  d.version = 7;
  EXPECT_THROW(target_from_descriptor(d), std::invalid_argument);
  d.version = CUBRIDGE_XLA_TARGET_DESCRIPTOR_VERSION;
  d.flags = 6;
  EXPECT_THROW(target_from_descriptor(d), std::invalid_argument);
}
