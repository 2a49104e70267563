// The scalar-type table (cubridge/types/scalar_type.hpp): its invariants, its lookups, and the array layer's
// round trips through it (typestr and DLPack). CPU only.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <tuple>

#include "cubridge/array/dtype.hpp"
#include "cubridge/types/scalar_type.hpp"

namespace cubridge {
namespace {

using Spellings = std::set<std::string_view>;

TEST(ScalarTypeTable, EveryColumnSpellsEachTypeOnce) {
  Spellings names, typestrs, aliases, c_types, xla;
  std::set<int> primitives;
  std::set<std::tuple<int, int, int>> dlpack;
  for (const ScalarTypeInfo& row : kScalarTypes) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(c_types.insert(row.c_type).second) << row.name;
    EXPECT_TRUE(xla.insert(row.xla).second) << row.name;
    EXPECT_TRUE(primitives.insert(row.xla_primitive).second) << row.name;
    EXPECT_TRUE(dlpack.insert({row.dlpack.code, row.dlpack.bits, row.dlpack.lanes}).second) << row.name;
    if (!row.typestr.empty()) {
      EXPECT_TRUE(typestrs.insert(row.typestr).second) << row.name;
    }
    if (!row.alias.empty()) {
      EXPECT_TRUE(aliases.insert(row.alias).second) << row.name;
    }
    for (std::string_view column : {row.name, row.c_type, row.xla}) EXPECT_FALSE(column.empty()) << row.name;
  }
  // Signatures read a name, an alias or a short typestr as one spelling: no text may mean two rows.
  Spellings signature_spellings;
  for (const ScalarTypeInfo& row : kScalarTypes)
    for (std::string_view s : {row.name, row.alias, row.short_typestr()})
      if (!s.empty()) {
        EXPECT_TRUE(signature_spellings.insert(s).second) << s << " names two rows";
      }
}

TEST(ScalarTypeTable, SizesAndCodesAgree) {
  for (const ScalarTypeInfo& row : kScalarTypes) {
    EXPECT_EQ(row.dlpack.bits, 8 * row.itemsize) << row.name;
    EXPECT_EQ(row.dlpack.lanes, 1) << row.name;
    EXPECT_TRUE(row.itemsize == 1 || row.itemsize == 2 || row.itemsize == 4 || row.itemsize == 8 ||
                row.itemsize == 16)
        << row.name;
    // The digits of Numba's name are the bits (bool: none), as are XLA's (pred: none).
    if (row.kind != 'b') {
      EXPECT_TRUE(row.name.ends_with(std::to_string(8 * row.itemsize))) << row.name;
      EXPECT_TRUE(row.xla.ends_with(std::to_string(8 * row.itemsize))) << row.xla;
    }
  }
  // One DLPack code per NumPy kind, and back.
  for (const ScalarTypeInfo& a : kScalarTypes)
    for (const ScalarTypeInfo& b : kScalarTypes)
      if (a.numpy() && b.numpy()) {
        EXPECT_EQ(a.kind == b.kind, a.dlpack.code == b.dlpack.code) << a.name << b.name;
      }
}

TEST(ScalarTypeTable, TypestrIsOrderKindAndSize) {
  for (const ScalarTypeInfo& row : kScalarTypes) {
    if (!row.numpy()) {
      EXPECT_TRUE(row.typestr.empty()) << row.name;
      continue;
    }
    std::string expected = std::string(1, row.itemsize == 1 ? '|' : '<') + row.kind + std::to_string(row.itemsize);
    EXPECT_EQ(row.typestr, expected) << row.name;
    EXPECT_EQ(row.short_typestr(), expected.substr(1));
  }
}

TEST(ScalarTypeTable, PinnedRows) {
  const ScalarTypeInfo& f4 = scalar_type_info(ScalarType::Float32);
  EXPECT_EQ(f4.name, "float32");
  EXPECT_EQ(f4.kind, 'f');
  EXPECT_EQ(f4.itemsize, 4);
  EXPECT_EQ(f4.typestr, "<f4");
  EXPECT_EQ(f4.c_type, "float");
  EXPECT_EQ(f4.dlpack.code, CUBRIDGE_DL_FLOAT);
  EXPECT_EQ(f4.xla, "f32");
  EXPECT_EQ(f4.xla_primitive, 11);
  const ScalarTypeInfo& b = scalar_type_info(ScalarType::Bool);
  EXPECT_EQ(b.typestr, "|b1");
  EXPECT_EQ(b.alias, "boolean");
  EXPECT_EQ(b.dlpack.code, CUBRIDGE_DL_BOOL);
  EXPECT_EQ(b.dlpack.bits, 8);
  EXPECT_EQ(b.xla, "pred");
  const ScalarTypeInfo& bf = scalar_type_info(ScalarType::BFloat16);
  EXPECT_FALSE(bf.numpy());
  EXPECT_EQ(bf.dlpack.code, CUBRIDGE_DL_BFLOAT);
  EXPECT_EQ(bf.xla, "bf16");
  EXPECT_EQ(bf.xla_primitive, 16);
  EXPECT_EQ(scalar_type_info(ScalarType::Complex128).typestr, "<c16");
  EXPECT_EQ(scalar_type_info(ScalarType::Int64).alias, "intp");
  EXPECT_EQ(scalar_type_info(ScalarType::Float16).c_type, "__half");
}

TEST(ScalarTypeTable, EveryLookupFindsItsRow) {
  for (const ScalarTypeInfo& row : kScalarTypes) {
    EXPECT_EQ(&scalar_type_info(row.type), &row);
    EXPECT_EQ(scalar_type_spelled(row.name), &row);
    if (!row.alias.empty()) {
      EXPECT_EQ(scalar_type_spelled(row.alias), &row);
    }
    if (row.numpy()) {
      EXPECT_EQ(scalar_type_spelled(row.short_typestr()), &row);
      EXPECT_EQ(scalar_type_of_numpy(row.kind, row.itemsize), &row);
    }
    EXPECT_EQ(scalar_type_of_dlpack(row.dlpack), &row);
  }
  for (std::string_view text : {"", "float", "f", "<f4", "float128", "void", "pred"})
    EXPECT_EQ(scalar_type_spelled(text), nullptr) << text;
  EXPECT_EQ(scalar_type_of_numpy('f', 1), nullptr);
  EXPECT_EQ(scalar_type_of_numpy('f', 3), nullptr);
  EXPECT_EQ(scalar_type_of_numpy('f', 32), nullptr);
  EXPECT_EQ(scalar_type_of_numpy('V', 4), nullptr);
  EXPECT_EQ(scalar_type_of_numpy('\0', 2), nullptr);  // bfloat16 has no NumPy kind
  EXPECT_EQ(scalar_type_of_dlpack(CubridgeDLDataType{CUBRIDGE_DL_FLOAT, 32, 4}), nullptr);
}

TEST(ScalarTypeTable, ArrayLayerRoundTripsTypestrAndDLPack) {
  for (const ScalarTypeInfo& row : kScalarTypes) {
    if (!row.numpy()) {  // bfloat16: a DType of its own, kDLBfloat/16 both ways, no typestr of its own
      EXPECT_EQ(from_dlpack_dtype(row.dlpack), bfloat16_dtype()) << row.name;
      EXPECT_EQ(to_dlpack_dtype(bfloat16_dtype())->code, row.dlpack.code) << row.name;
      continue;
    }
    DType d = parse_typestr(row.typestr, "t");
    EXPECT_EQ(d.kind, row.kind);
    EXPECT_EQ(d.itemsize, row.itemsize);
    EXPECT_EQ(std::string(d.typestr()), row.typestr);  // the test machines are little-endian
    auto dl = to_dlpack_dtype(d);
    ASSERT_TRUE(dl.has_value()) << row.name;
    EXPECT_EQ(std::tie(dl->code, dl->bits, dl->lanes), std::tie(row.dlpack.code, row.dlpack.bits, row.dlpack.lanes));
    EXPECT_EQ(from_dlpack_dtype(*dl), d);
    if (row.itemsize > 1) {
      std::string swapped = ">" + std::string(row.short_typestr());
      EXPECT_EQ(std::string(parse_typestr(swapped, "t").typestr()), swapped);
    }
  }
}

}  // namespace
}  // namespace cubridge
