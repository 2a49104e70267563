// libFuzzer target for the array layer's readers of foreign descriptions: a DLPack DLTensor (check_dltensor
// and view_of_dltensor, as from_dlpack and the C API see a producer's tensor), a CUDA Array Interface
// description (view_from_interface, the CAI value rules), a 'descr' list (check_descr, the rules both
// Python readers of descr lists share). Input: the first byte picks the reader (even: DLTensor, 1 mod 4:
// CAI, 3 mod 4: descr); the rest fills the fields. No GPU is touched (pointer checks are off).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cubridge/array/array_interface.hpp"
#include "cubridge/array/descr.hpp"
#include "cubridge/array/dlpack_exchange.hpp"

namespace {

// Reads fixed-size values off the input; zeros once it is used up.
struct Input {
  const std::uint8_t* p;
  std::size_t n;
  template <class T>
  T take() {
    T v{};
    std::size_t k = n < sizeof(T) ? n : sizeof(T);
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
};

// A descr list of up to 4 fields a level, nested up to 40 deep (past kMaxDescrDepth, which must stop it).
std::vector<cubridge::DescrField> descr_of(Input& in, int depth) {
  std::vector<cubridge::DescrField> fields(in.take<std::uint8_t>() % 5);
  for (auto& f : fields) {
    const std::uint8_t kind = in.take<std::uint8_t>();
    f.nested = depth < 40 && (kind & 1);
    if (f.nested) f.fields = descr_of(in, depth + 1);
    else
      for (std::size_t k = (kind >> 1) % 7; k > 0; --k) f.typestr += in.take<char>();
    for (std::size_t k = (kind >> 4) % 4; k > 0; --k) f.shape.push_back(in.take<std::int64_t>());
  }
  return fields;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  Input in{data + 1, size - 1};
  try {
    switch (data[0] % 4) {
      case 0:
      case 2: {
        CubridgeDLTensor t{};
        t.data = reinterpret_cast<void*>(in.take<std::uint64_t>());
        t.device = {in.take<std::int8_t>() % 16, 0};
        t.ndim = in.take<std::int8_t>();
        t.dtype = {in.take<std::uint8_t>(), in.take<std::uint8_t>(), in.take<std::uint16_t>()};
        t.byte_offset = in.take<std::uint64_t>();
        const bool null_shape = in.take<std::uint8_t>() & 1, null_strides = in.take<std::uint8_t>() & 1;
        std::vector<std::int64_t> dims(128);  // room for any ndim a signed byte can claim
        for (auto& d : dims) d = in.take<std::int64_t>();
        t.shape = null_shape ? nullptr : dims.data();
        t.strides = null_strides ? nullptr : dims.data() + 64;
        cubridge::check_dltensor(t, 32, "fuzz");
        (void)cubridge::view_of_dltensor(t, false, nullptr).extent();
        break;
      }
      case 3: {
        const auto itemsize = in.take<std::uint16_t>();
        const std::vector<cubridge::DescrField> fields = descr_of(in, 0);
        cubridge::check_descr(fields, cubridge::parse_typestr("|V" + std::to_string(itemsize), "fuzz"), "descr");
        break;
      }
      default: {
        cubridge::ArrayInterface ai;
        ai.version = in.take<std::int8_t>();
        const std::size_t ndim = in.take<std::uint8_t>() % 40;
        std::vector<std::int64_t> shape(ndim), strides(ndim);
        for (auto& d : shape) d = in.take<std::int64_t>();
        for (auto& d : strides) d = in.take<std::int64_t>();
        ai.shape = shape;
        std::string typestr;
        for (std::size_t k = in.take<std::uint8_t>() % 8; k > 0; --k) typestr += in.take<char>();
        ai.typestr = typestr;
        ai.data = in.take<std::uint64_t>();
        ai.read_only = in.take<std::uint8_t>() & 1;
        if (in.take<std::uint8_t>() & 1) ai.strides = std::span<const std::int64_t>(strides);
        if (in.take<std::uint8_t>() & 1) ai.stream = in.take<std::uint64_t>();
        ai.has_mask = in.take<std::uint8_t>() & 1;
        (void)cubridge::view_from_interface(ai, nullptr, {.sync = false, .check_pointer = false}).extent();
        break;
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
