// Umbrella header for the array layer. Internal: includes only.
#pragma once
#include "cubridge/array/array_copy.hpp"
#include "cubridge/array/array_interface.hpp"
#include "cubridge/array/array_view.hpp"
#include "cubridge/array/descr.hpp"
#include "cubridge/array/dlpack_exchange.hpp"
#include "cubridge/array/dtype.hpp"
#include "cubridge/array/errors.hpp"
#include "cubridge/array/pointer_attributes.hpp"
#include "cubridge/array/stream_order.hpp"
