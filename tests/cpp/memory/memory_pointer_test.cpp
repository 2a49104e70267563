// MemoryPointer lifetime rules, IpcHandle byte layout, OutOfMemory message (no GPU needed).
#include <gtest/gtest.h>

#include "cubridge/memory/ipc_handle.hpp"
#include "cubridge/memory/memory_pointer.hpp"
#include "cubridge/memory/out_of_memory.hpp"

using namespace cubridge::memory;

TEST(MemoryPointer, FinalizerRunsOnceWhenTheInstanceDies) {
  int runs = 0;
  { auto p = std::make_shared<MemoryPointer>(nullptr, 0x1000, 64, nullptr, [&] { ++runs; }); EXPECT_EQ(p->refct(), 1); }
  EXPECT_EQ(runs, 1);
}

TEST(MemoryPointer, RefcountStartsAtOneAndFreesAtZero) {
  int runs = 0;
  auto p = std::make_shared<MemoryPointer>(nullptr, 0x1000, 64, nullptr, [&] { ++runs; });
  p->incref();
  p->decref();
  EXPECT_EQ(runs, 0);
  p->decref();
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(p->freed());
  p->free();
  p.reset();
  EXPECT_EQ(runs, 1);
}

TEST(MemoryPointer, AutoFreePointerStartsAtZero) {
  int runs = 0;
  {
    auto p = std::make_shared<AutoFreePointer>(nullptr, 0x1000, 64, nullptr, [&] { ++runs; });
    EXPECT_EQ(p->refct(), 0);
  }
  EXPECT_EQ(runs, 1);
}

TEST(MemoryPointer, ViewsKeepTheParentAlive) {
  int runs = 0;
  std::shared_ptr<MemoryPointer> v;
  {
    auto p = std::make_shared<MemoryPointer>(nullptr, 0x1000, 64, nullptr, [&] { ++runs; });
    v = MemoryPointer::view(p, 16, 48);
  }
  EXPECT_EQ(runs, 0);
  EXPECT_EQ(v->device_pointer(), 0x1010u);
  EXPECT_EQ(v->size(), 32u);
  auto vv = MemoryPointer::view(v, 8);
  EXPECT_EQ(vv->device_pointer(), 0x1018u);
  EXPECT_EQ(vv->size(), 24u);
  v.reset();
  vv.reset();
  EXPECT_EQ(runs, 1);
}

TEST(MemoryPointer, ViewOutOfBoundsNamesTheRange) {
  auto p = std::make_shared<MemoryPointer>(nullptr, 0x1000, 64);
  try {
    MemoryPointer::view(p, 10, 65);
    FAIL();
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "MemoryPointer.view(10, 65): the range must satisfy 0 <= start <= stop <= 64 (the buffer's size)");
  }
}

TEST(MemoryPointer, HostKinds) {
  auto m = std::make_shared<MappedMemory>(nullptr, 0x5000, 0x9000, 128);
  EXPECT_EQ(m->kind(), MemoryKind::mapped);
  EXPECT_EQ(m->host_pointer(), 0x5000u);
  EXPECT_EQ(m->device_pointer(), 0x9000u);
  auto owner = std::make_shared<int>(3);
  std::weak_ptr<int> w = owner;
  auto pin = std::make_shared<PinnedMemory>(nullptr, 0x6000, 128, owner);
  owner.reset();
  EXPECT_FALSE(w.expired());
  auto view = MemoryPointer::view(pin, 64);
  EXPECT_EQ(view->kind(), MemoryKind::pinned);
  EXPECT_EQ(view->host_pointer(), 0x6040u);
  pin.reset();
  view.reset();
  EXPECT_TRUE(w.expired());
}

TEST(IpcHandle, SerialisesToTheDocumentedLayout) {
  IpcHandle::Bytes h{};
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<unsigned char>(i + 1);
  IpcHandle::Uuid uuid{};
  uuid[0] = 0xAB;
  uuid[15] = 0xCD;
  IpcHandle ipc(nullptr, h, 0x123456789, uuid, 256);
  auto bytes = ipc.serialize();
  ASSERT_EQ(bytes.size(), 120u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), 6), "CBIPC1");
  EXPECT_EQ(bytes[8], 1);    // version
  EXPECT_EQ(bytes[12], 1);   // flags: uuid present
  EXPECT_EQ(bytes[16], 0x89);
  EXPECT_EQ(bytes[20], 0x01);
  EXPECT_EQ(bytes[25], 0x01);  // offset 256 little-endian
  EXPECT_EQ(bytes[32], 1);
  EXPECT_EQ(bytes[95], 64);
  EXPECT_EQ(bytes[96], 0xAB);
  EXPECT_EQ(bytes[111], 0xCD);
  auto back = IpcHandle::deserialize(bytes);
  EXPECT_EQ(back.handle(), h);
  EXPECT_EQ(back.size(), 0x123456789u);
  EXPECT_EQ(back.offset(), 256u);
  ASSERT_TRUE(back.source_info());
  EXPECT_EQ(*back.source_info(), uuid);
  EXPECT_EQ(back.base(), nullptr);
  IpcHandle no_uuid(nullptr, h, 10);
  EXPECT_FALSE(IpcHandle::deserialize(no_uuid.serialize()).source_info());
}

TEST(IpcHandle, RejectsMalformedBytes) {
  IpcHandle ipc(nullptr, IpcHandle::Bytes{}, 10);
  auto bytes = ipc.serialize();
  auto expect_message = [](std::vector<unsigned char> b, const std::string& text) {
    try {
      IpcHandle::deserialize(b);
      ADD_FAILURE() << "accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  expect_message(std::vector<unsigned char>(bytes.begin(), bytes.end() - 1), "119 bytes given; a serialised handle is 120 bytes");
  auto bad = bytes;
  bad[0] = 'X';
  expect_message(bad, "do not start with the magic");
  bad = bytes;
  bad[8] = 2;
  expect_message(bad, "layout version 2 is not supported (accepted: 1)");
  bad = bytes;
  bad[13] = 1;  // flags 256
  expect_message(bad, "flags 256 set bits that layout version 1 does not define");
  bad = bytes;
  bad[119] = 1;
  expect_message(bad, "the reserved field at bytes [112, 120) is 72057594037927936");
  bad = bytes;
  bad[100] = 7;
  expect_message(bad, "bytes [96, 112) hold a device UUID but flags bit 0 (UUID given) is clear");
  bad = IpcHandle(nullptr, IpcHandle::Bytes{}, 16, std::nullopt, SIZE_MAX - 16).serialize();
  bad[16] = 17;  // size 17: the range would end one byte past the address space
  expect_message(bad, "plus size 17 exceeds the address space");
  EXPECT_THROW(IpcHandle(nullptr, IpcHandle::Bytes{}, 2, std::nullopt, SIZE_MAX), std::invalid_argument);
}

TEST(OutOfMemory, MessageStatesSizeAndFreeTotal) {
  cubridge::OutOfMemory e(1 << 20, 512, 4096, 0, "default", "cuMemAlloc");
  EXPECT_STREQ(e.what(),
               "out of memory: cannot allocate 1048576 bytes (1.0 MiB) on device 0 with the default memory manager: "
               "512 bytes (0.0 MiB) free of 4096 bytes (0.0 MiB) total");
  EXPECT_EQ(e.code(), 2);
  EXPECT_EQ(e.name(), "CUDA_ERROR_OUT_OF_MEMORY");
  EXPECT_EQ(e.requested(), 1u << 20);
}
