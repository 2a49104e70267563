// Umbrella header of the types floor: the scalar table, the one Type and the spellings of types.
// Implements: DESIGN.md "types/" (the ground floor every layer and the Python package name types with).
#pragma once

#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "cubridge/types/type.hpp"
