"""Kernel corpus, part 3: slices of arrays inside kernels (views with Python's bounds: negative starts and
stops, clamping, negative and run-time steps, chained slices, rows and columns of 2-d arrays). CASES
(kernel_cases.py) pairs each with its signature, inputs and NumPy reference."""
import cubridge


def shifted_difference(x, out):
    # out[i] = x[i + 1] - x[i] through two views that differ by one element
    later = x[1:]
    earlier = x[:-1]
    i = cubridge.grid(1)
    if i < len(later):
        out[i] = later[i] - earlier[i]


def even_times_odd(x, out):
    evens = x[::2]
    odds = x[1::2]
    i = cubridge.grid(1)
    if i < len(odds):
        out[i] = evens[i] * odds[i]


def window_reversed(x, lo, hi, out):
    # a chained slice with run-time (possibly negative, out-of-range) bounds; the last element of out
    # receives the window's length
    w = x[lo:hi][::-1]
    i = cubridge.grid(1)
    if i < len(w):
        out[i] = w[i]
    if i == 0:
        out[len(out) - 1] = len(w)


def row_minus_column(a, out):
    # row i and column i of a 2-d array as 1-d views
    i = cubridge.grid(1)
    if i < out.shape[0]:
        row = a[i, :]
        col = a[:, i]
        s = 0.0
        for k in range(len(row)):
            s += row[k]
        for k in range(col.shape[0]):
            s -= col[k]
        out[i] = s


def strided_block(a, step, out):
    # a 2-d view with a constant step on one axis and a run-time negative step on the other
    blk = a[1:-1:2, ::step]
    i, j = cubridge.grid(2)
    if i < blk.shape[0] and j < blk.shape[1]:
        out[i, j] = blk[i, j]
    if i == 0 and j == 0:
        out[out.shape[0] - 1, out.shape[1] - 1] = blk.shape[0] * 1000 + blk.shape[1]
