// Umbrella header of the types floor: the scalar table, the one Type, the one grammar of type spellings
// and the Signature. Implements: DESIGN.md "types/" (the ground floor every layer names types with).
#pragma once

#include "cubridge/types/array_spelling.hpp"
#include "cubridge/types/scalar_type.hpp"
#include "cubridge/types/signature.hpp"
#include "cubridge/types/type.hpp"
#include "cubridge/types/type_spelling.hpp"
