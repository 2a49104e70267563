// The kernel layer reads signatures in the one grammar: every row of the spelling table that a kernel
// takes is a parameter whose ABI view names the same type, the others are refused by name, and a bad
// spelling gets the types floor's message with "kernel " in front.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cubridge/kernel/kernel_signature.hpp"
#include "cubridge/types/type_spelling.hpp"
#include "spelling_table.hpp"

namespace {

using cubridge::KernelSignature;

TEST(KernelSpellings, EveryKernelRowIsAParameterOfTheSameType) {
  for (const auto& row : cubridge::test::kSpellings) {
    const std::string text = "void(" + std::string(row.spelling) + ")";
    if (!row.kernel_parameter) {
      try {
        KernelSignature::parse(text);
        ADD_FAILURE() << text << " was accepted";
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("is not a kernel parameter type; kernels take numbers, arrays, records, "
                                             "pointers and tuples of these"),
                  std::string::npos)
            << e.what();
      }
      continue;
    }
    KernelSignature s = KernelSignature::parse(text);
    if (s.has_tuples()) {  // passed as its elements: the argument keeps the tuple's type
      ASSERT_EQ(s.argument_count(), 1u) << text;
      EXPECT_EQ(s.arguments()[0].name(), row.numba_name) << text;
      EXPECT_EQ(s.size(), s.arguments()[0].leaf_count()) << text;
      continue;
    }
    ASSERT_EQ(s.size(), 1u) << text;
    // The ABI view spells the parameter in Numba's signature spelling; it denotes the row's type.
    std::optional<cubridge::Type> back = cubridge::parse_type_name(s[0].to_string());
    ASSERT_TRUE(back.has_value()) << s[0].to_string();
    EXPECT_EQ(back->name(), row.numba_name) << text;
  }
}

TEST(KernelSpellings, ABadSpellingGetsTheOneMessageWithKernelInFront) {
  for (const auto& bad : cubridge::test::kBadSpellings) {
    const std::string text = "void(" + std::string(bad.spelling) + ")";
    try {
      KernelSignature::parse(text);
      ADD_FAILURE() << text << " was accepted";
    } catch (const std::invalid_argument& e) {
      const std::string expected = "kernel signature '" + text + "': unknown argument type '" +
                                   std::string(bad.spelling) + "': " + std::string(bad.says);
      EXPECT_EQ(std::string(e.what()).substr(0, expected.size()), expected) << e.what();
    }
  }
}

}  // namespace
