// Internal: Device queries, each one checked driver call.
#include "cubridge/driver/device.hpp"

#include <cstdio>
#include <stdexcept>

#include "driver/driver_api.hpp"

namespace cubridge {

namespace {
CUdevice handle_of(int ordinal) {
  CUdevice dev = 0;
  CUBRIDGE_CU(cuDeviceGet, &dev, ordinal);
  return dev;
}
}  // namespace

int Device::count() {
  int n = 0;
  CUBRIDGE_CU(cuDeviceGetCount, &n);
  return n;
}

Device::Device(int ordinal) : ordinal_(ordinal) {
  int n = count();
  if (ordinal < 0 || ordinal >= n)
    throw std::out_of_range("device ordinal " + std::to_string(ordinal) +
                            " is out of range: this machine has " + std::to_string(n) +
                            " CUDA device(s), ordinals 0.." + std::to_string(n - 1));
}

std::string Device::name() const {
  char buf[256] = {};
  CUBRIDGE_CU(cuDeviceGetName, buf, static_cast<int>(sizeof buf - 1), handle_of(ordinal_));
  return buf;
}

std::pair<int, int> Device::compute_capability() const {
  return {attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
          attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)};
}

std::array<unsigned char, 16> Device::uuid() const {
  CUuuid u{};
  CUBRIDGE_CU(cuDeviceGetUuid, &u, handle_of(ordinal_));
  std::array<unsigned char, 16> out{};
  for (int i = 0; i < 16; ++i) out[i] = static_cast<unsigned char>(u.bytes[i]);
  return out;
}

std::string Device::uuid_string() const {
  auto b = uuid();
  char buf[64];
  std::snprintf(buf, sizeof buf,
                "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
                b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
                b[14], b[15]);
  return buf;
}

std::string Device::pci_bus_id() const {
  char buf[64] = {};
  CUBRIDGE_CU(cuDeviceGetPCIBusId, buf, static_cast<int>(sizeof buf - 1), handle_of(ordinal_));
  return buf;
}

std::size_t Device::total_memory() const {
  std::size_t bytes = 0;
  CUBRIDGE_CU(cuDeviceTotalMem, &bytes, handle_of(ordinal_));
  return bytes;
}

int Device::attribute(int cu_device_attribute) const {
  int value = 0;
  CUBRIDGE_CU(cuDeviceGetAttribute, &value, static_cast<CUdevice_attribute>(cu_device_attribute),
              handle_of(ordinal_));
  return value;
}

int Device::multiprocessor_count() const {
  return attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
}

}  // namespace cubridge
