// A CUDA device: its identity (name, UUID, PCI bus id), compute capability, memory and attributes.
// Implements: DESIGN.md "driver/" Device. Devices are plain values (an ordinal): the driver owns them.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <utility>

namespace cubridge {

class Device {
 public:
  /// Throws std::out_of_range naming the ordinal and the device count when `ordinal` is invalid.
  explicit Device(int ordinal);

  int ordinal() const noexcept { return ordinal_; }
  std::string name() const;
  std::pair<int, int> compute_capability() const;
  /// 16 raw bytes of the device UUID.
  std::array<unsigned char, 16> uuid() const;
  /// The UUID in nvidia-smi's spelling: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
  std::string uuid_string() const;
  /// Domain:bus:device.function, e.g. "0000:1B:00.0".
  std::string pci_bus_id() const;
  std::size_t total_memory() const;
  /// Any CUdevice_attribute value.
  int attribute(int cu_device_attribute) const;
  int multiprocessor_count() const;

  /// Number of devices; throws DriverUnavailable when there is no driver or no device.
  static int count();

  friend bool operator==(const Device&, const Device&) = default;

 private:
  int ordinal_;
};

}  // namespace cubridge
