"""A call sharded by a factor rule: each device runs the unsharded call on its shard (cubridge.jax).

A rule names one factor per dimension of every array operand and every result, in Shardy's notation:
``"i j, j -> i j"`` (operands separated by commas, then ``->`` and the results). Declaring it says that the
call computes each element of a result from the elements of the operands that share its factors, and
nothing else: so a dimension whose factor is sharded over mesh axes can be split, and each device calls
the kernel on its block with the block's shapes. Factors that appear in operands but in no result are
reductions: they are kept whole on every device (the partitioner gathers them; no partial results to
combine). Factors that appear only in results, dimensions whose size does not divide by the axes' size,
and a mesh axis claimed by two factors are not split either. XLA sees the rule through
``jax.experimental.custom_partitioning`` (Shardy's ``sharding_rule`` and, for the GSPMD partitioner,
``infer_sharding_from_operands``), so operands sharded over an explicit mesh stay sharded: no all-gather
precedes the call.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

_FACTOR = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class FactorRule:
    """A parsed rule: the factor of each dimension of each operand and each result."""

    text: str
    operands: tuple[tuple[str, ...], ...]
    results: tuple[tuple[str, ...], ...]

    @property
    def elementwise(self) -> bool:
        """Every operand and result has the same factors, in order, and at least one."""
        arrays = self.operands + self.results
        return bool(arrays) and bool(arrays[0]) and all(dims == arrays[0] for dims in arrays)

    @property
    def reductions(self) -> frozenset[str]:
        produced = {f for dims in self.results for f in dims}
        return frozenset(f for dims in self.operands for f in dims if f not in produced)


def parse_rule(text, what: str = "sharding_rule") -> FactorRule:
    """Parses ``"i j, j -> i j"``; refuses anything else with the accepted form in the message."""
    if not isinstance(text, str):
        raise TypeError(f"{what}={text!r} ({type(text).__name__}) is not a str such as 'i j, j -> i j' (one factor "
                        "name per dimension of each array operand, then '->' and the results)")
    if text.count("->") != 1:
        raise ValueError(f"{what}={text!r} has {text.count('->')} '->'; the form is 'operands -> results', e.g. "
                         "'i j, j -> i j'")
    left, right = text.split("->")

    def side(part: str, role: str) -> tuple[tuple[str, ...], ...]:
        if not part.strip():
            return ()
        out = []
        for k, item in enumerate(part.split(",")):
            dims = tuple(item.split())
            for f in dims:
                if not _FACTOR.match(f):
                    raise ValueError(f"{what}={text!r}: {role} {k} names the factor {f!r}; a factor is a name "
                                     "(letters, digits, '_'), one per dimension ('...' and compound factors "
                                     "are not supported)")
            if len(set(dims)) != len(dims):
                raise ValueError(f"{what}={text!r}: {role} {k} ({item.strip()!r}) names a factor twice; each "
                                 "dimension of one array has a factor of its own")
            out.append(dims)
        return tuple(out)

    return FactorRule(text, side(left, "operand"), side(right, "result"))


def check_rule(rule: FactorRule, operand_shapes, result_shapes, kernel: str) -> None:
    """Every array has as many factors as dimensions, and a factor has one size everywhere."""
    for role, dims_list, shapes in (("operand", rule.operands, operand_shapes), ("result", rule.results, result_shapes)):
        if len(dims_list) != len(shapes):
            raise ValueError(f"kernel_call: kernel {kernel!r}: sharding_rule {rule.text!r} names {len(dims_list)} "
                             f"{role}s, but the call has {len(shapes)} array {role}s")
    sizes: dict[str, tuple[int, str]] = {}
    for role, dims_list, shapes in (("operand", rule.operands, operand_shapes), ("result", rule.results, result_shapes)):
        for k, (dims, shape) in enumerate(zip(dims_list, shapes)):
            if len(dims) != len(shape):
                raise ValueError(f"kernel_call: kernel {kernel!r}: sharding_rule {rule.text!r} gives {role} {k} "
                                 f"{len(dims)} factors, but its shape {tuple(shape)} has {len(shape)} dimensions")
            for f, n in zip(dims, shape):
                where = f"{role} {k} {tuple(shape)}"
                if f in sizes and sizes[f][0] != n:
                    raise ValueError(f"kernel_call: kernel {kernel!r}: factor {f!r} of sharding_rule {rule.text!r} "
                                     f"is {sizes[f][0]} in {sizes[f][1]} but {n} in {where}")
                sizes.setdefault(f, (int(n), where))


def _axes(entry) -> tuple[str, ...]:
    if entry is None:
        return ()
    return tuple(entry) if isinstance(entry, (tuple, list)) else (entry,)


def factor_axes(rule: FactorRule, mesh, operand_specs, operand_shapes) -> dict[str, tuple[str, ...]]:
    """Which mesh axes split each factor, read from the operands' partition specs: the first operand that
    splits a factor decides; reductions, uneven splits and axes already taken stay unsplit."""
    chosen: dict[str, tuple[str, ...]] = {}
    taken: set[str] = set()
    for dims, spec, shape in zip(rule.operands, operand_specs, operand_shapes):
        entries = list(spec) + [None] * (len(dims) - len(spec))
        for f, entry, n in zip(dims, entries, shape):
            axes = _axes(entry)
            if not axes or f in chosen or f in rule.reductions or taken.intersection(axes):
                continue
            if n % math.prod(mesh.shape[a] for a in axes):
                continue
            chosen[f] = axes
            taken.update(axes)
    return chosen


def _spec(dims, axes: dict[str, tuple[str, ...]]):
    from jax.sharding import PartitionSpec

    return PartitionSpec(*[(axes[f] if len(axes[f]) > 1 else axes[f][0]) if f in axes else None for f in dims])


def sharded(call, rule: FactorRule, static_argnums: tuple[int, ...], results, single_result: bool):
    """`call(result_specs, *args)` as a custom_partitioning function of `args`: the arrays are the positions
    not in `static_argnums`; `results` are the global result specs (.shape, .dtype). Inside each device's
    program `call` is traced again with the blocks and the result specs of one block."""
    import jax
    from jax.experimental.custom_partitioning import custom_partitioning
    from jax.sharding import NamedSharding

    def plan(mesh, arg_shapes):
        shapes = [a.shape for a in arg_shapes]
        specs = [a.sharding.spec if isinstance(a.sharding, NamedSharding) else () for a in arg_shapes]
        axes = factor_axes(rule, mesh, specs, shapes)
        return ([NamedSharding(mesh, _spec(dims, axes)) for dims in rule.operands],
                [NamedSharding(mesh, _spec(dims, axes)) for dims in rule.results])

    def shaped(shardings):
        return shardings[0] if single_result else tuple(shardings)

    def infer(*rest):  # (static arguments..., mesh, arg_shapes, result_shape)
        mesh, arg_shapes, _ = rest[-3:]
        return shaped(plan(mesh, arg_shapes)[1])

    def partition(*rest):
        mesh, arg_shapes, _ = rest[-3:]
        statics = rest[:-3]
        arg_shardings, result_shardings = plan(mesh, arg_shapes)
        blocks = [jax.ShapeDtypeStruct(s.shard_shape(tuple(r.shape)), r.dtype) for s, r in zip(result_shardings, results)]

        def per_device(*arrays):
            args, given, fixed = [], iter(arrays), iter(statics)
            for i in range(len(arrays) + len(statics)):
                args.append(next(fixed) if i in static_argnums else next(given))
            return call(shaped(blocks), *args)

        return mesh, per_device, shaped(result_shardings), tuple(arg_shardings)

    def whole(*args):
        return call(shaped(list(results)), *args)

    f = custom_partitioning(whole, static_argnums=static_argnums)
    f.def_partition(partition, infer_sharding_from_operands=infer, sharding_rule=rule.text)
    return f
