// The kernel layer's view of the scalar-type table: parameter type names, sizes and array dtypes, for
// every row that NumPy has; bfloat16 is no parameter type. CPU only.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cubridge/kernel/kernel_signature.hpp"

namespace cubridge {
namespace {

TEST(KernelScalarTypes, EveryNumpyRowIsAParameterTypeByEachSpelling) {
  for (const ScalarTypeInfo& row : kScalarTypes) {
    if (!row.numpy()) continue;
    for (std::string_view spelling : {row.name, row.alias, row.short_typestr()}) {
      if (spelling.empty()) continue;
      KernelSignature s = KernelSignature::parse("void(" + std::string(spelling) + ")");
      EXPECT_EQ(s[0].type, row.type) << spelling;
      EXPECT_EQ(s.to_string(), "void(" + std::string(row.name) + ")");
    }
    EXPECT_EQ(std::string(scalar_type_name(row.type)), row.name);
    EXPECT_EQ(scalar_type_size(row.type), row.itemsize);
    EXPECT_EQ(scalar_type_of(scalar_type_dtype(row.type)), row.type) << row.name;
    EXPECT_EQ(std::string(scalar_type_dtype(row.type).typestr()), row.typestr);
  }
}

// A bfloat16 scalar is no parameter type (no Python value is one), but arrays of bfloat16 are: DLPack's
// kDLBfloat/16 and ml_dtypes.bfloat16 arrays carry the bfloat16 DType, which the launch matches.
TEST(KernelScalarTypes, Bfloat16IsAnArrayElementNotAScalarParameter) {
  try {
    KernelSignature::parse("void(bfloat16)");
    ADD_FAILURE() << "bfloat16 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 0, 'bfloat16', is not a kernel parameter type"), std::string::npos)
        << e.what();
  }
  ParamKind p;
  p.type = ScalarType::BFloat16;
  try {
    KernelSignature({p});
    ADD_FAILURE() << "a bfloat16 parameter was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("parameter 0 has type bfloat16, which NumPy lacks; accepted: bool"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(scalar_type_dtype(ScalarType::BFloat16), bfloat16_dtype());
  EXPECT_EQ(scalar_type_of(bfloat16_dtype()), ScalarType::BFloat16);
  EXPECT_EQ(scalar_type_of(parse_typestr("<V2", "t")), std::nullopt);  // a bare '<V2' is opaque bytes
  ParamKind array;
  array.kind = ParamKind::Kind::Array;
  array.type = ScalarType::BFloat16;
  array.ndim = 1;
  array.layout = 'C';
  const KernelSignature sig({array});
  EXPECT_EQ(sig[0].type, ScalarType::BFloat16);
}

}  // namespace
}  // namespace cubridge
