// The memory face: EMM v1 managers, pointers, IPC, pools, and the per-context registry.
// Implements: EMM v1 (NBEP 7) — umbrella header, includes only.
#pragma once

#include "cubridge/memory/builtin_managers.hpp"
#include "cubridge/memory/caching_pool.hpp"
#include "cubridge/memory/ipc_handle.hpp"
#include "cubridge/memory/manager.hpp"
#include "cubridge/memory/memory_pointer.hpp"
#include "cubridge/memory/memory_stats.hpp"
#include "cubridge/memory/out_of_memory.hpp"
#include "cubridge/memory/pending_frees.hpp"
#include "cubridge/memory/registry.hpp"
