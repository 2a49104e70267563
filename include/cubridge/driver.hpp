// Umbrella header for the driver layer. Internal: includes only.
#pragma once
#include "cubridge/driver/context.hpp"
#include "cubridge/driver/device.hpp"
#include "cubridge/driver/error.hpp"
#include "cubridge/driver/event.hpp"
#include "cubridge/driver/stream.hpp"
#include "cubridge/driver/stream_capture.hpp"
