"""NumPy structured dtypes as kernel types: Numba's spelling of a record type, read from a dtype or from a
CUDA Array Interface ``descr``, so that ``typeof`` of a structured array gives the parameter type
numba-cuda's ``typeof`` gives (``Record(x[type=float32;offset=0],y[type=int32;offset=4];8;False)[::1]``)."""
from __future__ import annotations

import sys

from . import _scalar_types

__all__: list[str] = []  # cubridge.from_record_like lives in _arrays (it makes a device array)

_SCALAR_NAMES = _scalar_types.NAME_OF_NUMPY


def _field_type(dtype, where: str) -> str:
    if dtype.subdtype is not None:  # an array field: ('v', np.float32, (3,))
        base, shape = dtype.subdtype  # NumPy folds nested shapes into one
        dims = ", ".join(str(d) for d in shape)
        return f"nestedarray({_field_type(base, where)}, ({dims}{',' if len(shape) == 1 else ''}))"
    if dtype.fields is not None:
        return record_name(dtype, where)
    if dtype.kind in _scalar_types.CHAR_SEQ_NAMES and dtype.itemsize and dtype.isnative:
        return _scalar_types.char_seq_name(dtype.kind, dtype.itemsize // (4 if dtype.kind == "U" else 1))
    name = _SCALAR_NAMES.get((dtype.kind, dtype.itemsize))
    if name is None or not dtype.isnative:
        why = _scalar_types.UNSUPPORTED_KINDS.get(dtype.kind)
        raise TypeError(f"{where}: field dtype {dtype.str!r} is not a kernel type; record fields are bool, "
                        "int8..int64, uint8..uint64, float16/32/64, complex64/128, fixed-width strings S<n> and U<n> "
                        "(native byte order), records and fixed-shape arrays of them" + (f" ({why})" if why else ""))
    return name


_NAMES: dict = {}  # id(dtype) -> (dtype, name): typeof runs on every lazy launch


def record_name(dtype, where: str = "typeof") -> str:
    """Numba's str() of ``numba.from_dtype(dtype)`` for a structured NumPy dtype: fields sorted by offset
    (then name), each ``name[type=T;offset=N]``, then the item size and whether NumPy aligned it."""
    hit = _NAMES.get(id(dtype))
    if hit is not None and hit[0] is dtype:  # by identity: equal dtypes may differ in their align flag
        return hit[1]
    name = _record_name(dtype, where)
    if len(_NAMES) > 256:
        _NAMES.clear()
    _NAMES[id(dtype)] = (dtype, name)  # holding the dtype keeps its id from being reused
    return name


def _record_name(dtype, where: str) -> str:
    fields = []
    for name, spec in dtype.fields.items():
        if len(spec) == 3 and spec[2] == name:  # a title's entry repeats a field under its title
            continue
        fields.append((spec[1], name, spec[0]))
    fields.sort(key=lambda f: (f[0], f[1]))
    body = ",".join(f"{name}[type={_field_type(ft, where)};offset={offset}]" for offset, name, ft in fields)
    return f"Record({body};{dtype.itemsize};{dtype.isalignedstruct})"


def _from_descr(descr):
    """The structured dtype a CAI/array-interface ``descr`` lists: fields at their packed offsets, unnamed
    entries as padding (NumPy writes an aligned dtype's padding that way; the alignment flag itself is not
    in a descr, so such a record reads as packed, with the same offsets and item size)."""
    import numpy
    names, formats, offsets, offset = [], [], [], 0
    for entry in descr:
        name, fmt = entry[0], entry[1]
        field = numpy.dtype(_from_descr(fmt) if isinstance(fmt, list) else fmt)
        if len(entry) > 2:
            field = numpy.dtype((field, tuple(entry[2])))
        if name:
            names.append(name)
            formats.append(field)
            offsets.append(offset)
        offset += field.itemsize
    return numpy.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": offset})


def _has_padding_fields(dtype) -> bool:
    """Whether `dtype` came from np.dtype(descr) of a padded descr, which names its padding 'f1', ... as
    void fields (cubridge's DeviceArray.dtype does): the descr itself then says which are padding."""
    return any(f[0].kind == "V" and f[0].fields is None and f[0].subdtype is None for f in dtype.fields.values())


def structured_dtype(arg, iface: dict):
    """The structured dtype of an array of typestr '|V<n>': its ``dtype`` when it has one (CuPy, NumPy,
    Numba), else the CAI/array-interface ``descr``; TypeError naming the array when neither has fields."""
    dtype = getattr(arg, "dtype", None)
    if getattr(dtype, "fields", None) is None or _has_padding_fields(dtype):
        descr = iface.get("descr")
        try:
            dtype = _from_descr(descr) if descr and descr != [("", iface["typestr"])] else None
        except (TypeError, ValueError, IndexError) as e:
            raise TypeError(f"typeof: the array's descr {descr!r} is not a NumPy structured dtype ({e})") from None
    if dtype is None or dtype.fields is None:
        raise TypeError(f"typeof: an array of typestr {iface['typestr']!r} without fields (no structured dtype, "
                        "no 'descr') cannot be a kernel argument; arrays of records pass with their fields")
    if dtype.itemsize != int(iface["typestr"][2:]):
        raise TypeError(f"typeof: the array's descr gives itemsize {dtype.itemsize}, its typestr "
                        f"{iface['typestr']!r} another")
    return dtype


def dtype_name(v) -> str | None:
    """The record type name of a NumPy structured dtype or a Numba Record type bound in a kernel's
    environment (the dtype of cuda.local.array / cuda.shared.array), else None."""
    if type(v).__name__ == "Record" and type(v).__module__.startswith("numba"):
        return str(v)
    np = sys.modules.get("numpy")
    if np is not None and isinstance(v, np.dtype) and v.fields is not None:
        return record_name(v, "dtype")
    return None
