// Umbrella header for the random layer. Internal: includes only.
#pragma once
#include "cubridge/random/xoroshiro128p_states.hpp"
