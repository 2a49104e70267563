// Records (NumPy structured dtypes) without a GPU: Numba's Record spelling and our own parsed to the same
// Type (NumPy's offsets, padding and item size), arrays of records, field typing and its refusals, and the
// NVVM IR of field access (byte-aligned for packed records, the field's own alignment for aligned ones).
#include <gtest/gtest.h>

#include <string>

#include "cubridge/compiler/compile.hpp"
#include "test_kernel_helpers.hpp"
#include "cubridge/types/signature.hpp"

using namespace cubridge;
using namespace cubridge::compiler;
using cubridge::parse_signature;  // the types floor (include/cubridge/types/)
using cubridge::parse_type_name;
using cubridge::Signature;
using cubridge::Type;
using cubridge::TypeKind;

namespace {
using cubridge::testing::count;
using cubridge::testing::kernel_options;

const char* kPair = "Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)";

std::string compile_error(const std::string& source, const std::string& sig) {
  try {
    compile_to_nvvm_ir(source, "k", parse_signature(sig), kernel_options());
  } catch (const CompileError& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(RecordTypes, NumbasSpellingRoundTrips) {
  auto r = parse_type_name(kPair);
  ASSERT_TRUE(r && r->is_record());
  EXPECT_EQ(r->name(), kPair);
  EXPECT_EQ(r->record_size(), 8);
  EXPECT_FALSE(r->aligned());
  EXPECT_EQ(r->field_index("y"), 1);
  EXPECT_EQ(r->field_index("z"), -1);
  // Fields come back in offset order (then name), as Numba sorts them; alignment and title are ignored.
  auto s = parse_type_name("Record(b[type=float64;offset=8;alignment=8],a[type=int8;offset=0];16;True)");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name(), "Record(a[type=int8;offset=0],b[type=float64;offset=8];16;True)");
  auto nested = parse_type_name(std::string("Record(v[type=nestedarray(float32, (2, 3));offset=0],p[type=") + kPair +
                                ";offset=24];32;False)");
  ASSERT_TRUE(nested);
  EXPECT_EQ(nested->elements()[0].name(), "nestedarray(float32, (2, 3))");
  EXPECT_EQ(nested->elements()[0].storage_size(), 24);
  EXPECT_TRUE(nested->elements()[1].is_record());
}

TEST(RecordTypes, MalformedRecordsAreNotTypes) {
  for (const char* bad : {"Record(x[type=float64;offset=0];4;False)",      // runs past the item size
                          "Record(x[type=int8;offset=0],x[type=int8;offset=1];2;False)",  // a name twice
                          "Record(x[type=int8];1;False)",                  // no offset
                          "Record(x[type=int8;offset=0];1;Maybe)", "Record(x[type=int8;offset=0;colour=red];1;False)",
                          "Record(x[type=float32[:];offset=0];8;False)", "Record(;4;False)", "Record(x=)",
                          "Record(x=float32, x=int8)", "Record(1x=int8)", "Record(x=int8; packed)",
                          "UniTuple(Record(x=int8) x 2)"})
    EXPECT_FALSE(parse_type_name(bad).has_value()) << bad;
}

TEST(RecordTypes, OurSpellingLaysFieldsOutAsNumPy) {
  EXPECT_EQ(parse_type_name("Record(x=float32, y=int32)")->name(), kPair);
  // align=True: each field at a multiple of its alignment (a complex's part, an array's element, a packed
  // record's 1), the size a multiple of the widest.
  EXPECT_EQ(parse_type_name("Record(a=int8, b=float64; aligned)")->name(),
            "Record(a[type=int8;offset=0],b[type=float64;offset=8];16;True)");
  EXPECT_EQ(parse_type_name("Record(a=int8, v=float64[3], m=int16[2, 2]; aligned)")->name(),
            "Record(a[type=int8;offset=0],v[type=nestedarray(float64, (3,));offset=8],"
            "m[type=nestedarray(int16, (2, 2));offset=32];40;True)");
  EXPECT_EQ(parse_type_name("Record(a=int8, p=Record(x=float32, y=float32), c=complex64; aligned)")->name(),
            "Record(a[type=int8;offset=0],p[type=Record(x[type=float32;offset=0],y[type=float32;offset=4];8;False);"
            "offset=1],c[type=complex64;offset=12];20;True)");
}

TEST(RecordTypes, ArraysOfRecordsInEverySpelling) {
  std::string c1 = std::string("unaligned array(") + kPair + ", 1d, C)";
  EXPECT_EQ(parse_type_name(std::string(kPair) + "[::1]")->name(), c1);
  EXPECT_EQ(parse_type_name(c1)->name(), c1);
  EXPECT_EQ(parse_type_name("Record(x=float32, y=int32)[:, :]")->name(),
            std::string("unaligned array(") + kPair + ", 2d, A)");
  EXPECT_EQ(parse_type_name(std::string("unaligned readonly array(") + kPair + ", 1d, C)")->name(),
            std::string("unaligned readonly array(") + kPair + ", 1d, C)");
  EXPECT_EQ(parse_type_name("Record(a=int8, b=float64; aligned)[::1]")->name(),
            "array(Record(a[type=int8;offset=0],b[type=float64;offset=8];16;True), 1d, C)");
  Signature s = parse_signature(std::string("void(") + kPair + "[::1], " + kPair + ")");
  ASSERT_EQ(s.args.size(), 2u);
  EXPECT_TRUE(s.args[0].is_array() && s.args[1].is_record());
}

TEST(RecordKernels, FieldsReadAndWriteThroughTheRecordsAddress) {
  std::string src =
      "def k(a, out):\n"
      "    out[0] = a[1].x + a[1]['y']\n"
      "    a[2].y = out[0]\n"
      "    a[3]['x'] += 1.0\n";
  std::string ir = compile_to_nvvm_ir(src, "k", parse_signature(std::string("void(") + kPair + "[::1], float64[::1])"),
                                      kernel_options())
                       .nvvm_ir;
  EXPECT_NE(ir.find("[8 x i8]*"), std::string::npos) << ir;  // the data pointer of a record array
  EXPECT_NE(ir.find("getelementptr i8, i8* "), std::string::npos);
  EXPECT_NE(ir.find(", i64 4\n"), std::string::npos);  // field y at offset 4
  EXPECT_NE(ir.find("fptosi double"), std::string::npos);  // a float stored into an int field truncates
  // A packed record is read and written with byte alignment; an aligned one with the field's own.
  EXPECT_GE(count(ir, ", align 1\n"), 4u);
  std::string aligned =
      compile_to_nvvm_ir("def k(a, out):\n    out[0] = a[1].b\n", "k",
                         parse_signature("void(Record(a=int8, b=float64; aligned)[::1], float64[::1])"),
                         kernel_options())
          .nvvm_ir;
  EXPECT_EQ(count(aligned, ", align 1\n"), 0u) << aligned;
}

TEST(RecordKernels, RecordsAsParametersLocalArraysAndCopies) {
  CompileOptions o = kernel_options();
  o.dtypes["REC"] = *parse_type_name(kPair);
  std::string src =
      "from numba import cuda\n"
      "def k(r, a):\n"
      "    t = cuda.local.array(4, REC)\n"
      "    t[0] = r\n"
      "    t[1].x = r.x\n"
      "    a[0] = t[1]\n";
  std::string ir = compile_to_nvvm_ir(src, "k", parse_signature(std::string("void(") + kPair + ", " + kPair + "[::1])"), o)
                       .nvvm_ir;
  EXPECT_NE(ir.find("alloca [4 x [8 x i8]], align 16"), std::string::npos) << ir;
  EXPECT_EQ(count(ir, "call void @llvm.memcpy.p0i8.p0i8.i64("), 2u);  // t[0] = r and a[0] = t[1]
  // The record parameter is one pointer, before the array's seven pieces.
  EXPECT_NE(ir.find("(i8* %\"r\", i8* %p1.0, i8* %p1.1, i64 %p1.2"), std::string::npos) << ir;
}

TEST(RecordKernels, RefusalsNameTheRecordAndWhatIsAccepted) {
  std::string sig = std::string("void(") + kPair + "[::1])";
  EXPECT_NE(compile_error("def k(a):\n    a[0].z = 1\n", sig)
                .find("2:6: record " + std::string(kPair) + " has no field 'z'; its fields: x (float32), y (int32)"),
            std::string::npos);
  EXPECT_NE(compile_error("def k(a):\n    i = 0\n    a[0][i] = 1\n", sig)
                .find("a record field key must be a constant: a string literal (r['x']) or an integer literal (r[0])"),
            std::string::npos);
  EXPECT_NE(compile_error("def k(a):\n    a[0].y = 2j\n", sig)
                .find("cannot store a value of type complex128 into field 'y' (int32)"),
            std::string::npos);
  EXPECT_NE(compile_error("def k(a):\n    a[0].x = a[1]\n", sig)
                .find("cannot store a value of type " + std::string(kPair) + " into field 'x' (float32)"),
            std::string::npos);
  EXPECT_NE(compile_error("def k(a):\n    a[0].x = a[1].x + a[1]\n", sig).find("unsupported operand types for +"),
            std::string::npos);
  EXPECT_NE(compile_error("def k(a):\n    a[0].w = 1\n", "void(Record(t=int8, w=int32)[::1])")
                .find("field 'w' (int32) of Record(t[type=int8;offset=0],w[type=int32;offset=1];5;False) is at "
                      "offset 1, not a multiple of its alignment 4"),
            std::string::npos);
}

TEST(RecordKernels, MangledWithAStableRecordCode) {
  Type r = *parse_type_name(kPair);
  std::string a = mangle_numba_abi("m", "k", {Type::array(r, 1, 'C')});
  EXPECT_EQ(a.rfind("_ZN1m1kE5ArrayI6RecordILj", 0), 0u) << a;
  EXPECT_NE(a.find("Li1E1C7mutable9unalignedE"), std::string::npos) << a;
  EXPECT_EQ(a, mangle_numba_abi("m", "k", {Type::array(*parse_type_name("Record(x=float32, y=int32)"), 1, 'C')}));
}
