/* A PyTorch-like producer for the host-driver bench: a 1-D float32 CUDA "tensor" type publishing a DLPack
 * 1.3 C exchange table, so the exchange route of cubridge's import (what torch.Tensor takes) can be timed
 * and profiled on a machine without PyTorch or a GPU. What torch's table does per call is mirrored in kind:
 * dltensor_from_py_object_no_sync checks the object's type and fills the DLTensor from fields the object
 * already holds (shape and strides point into it, as torch's point into the TensorImpl);
 * managed_tensor_from_py_object_no_sync allocates a managed tensor with its own shape and strides and a
 * deleter; current_work_stream answers the per-device current stream (a module-level value here, a
 * thread-local table in torch). The table counts its calls (`calls()`) so a bench can say how many
 * producer calls a launch makes. Built by build.sh as a Python extension module; not part of cubridge.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdlib.h>

#include "cubridge/c/dlpack.h"

typedef struct {
  PyObject_HEAD
  void* data;
  int64_t shape[1];
  int64_t strides[1];
  int device;
} Tensor;

static PyTypeObject TensorType;
static void* g_stream = NULL; /* the current work stream every device reports */
static unsigned long long g_from_object, g_dltensor, g_work_stream;

static int check(PyObject* obj) {
  if (!PyObject_TypeCheck(obj, &TensorType)) {
    PyErr_SetString(PyExc_TypeError, "not a host_torchlike.Tensor");
    return -1;
  }
  return 0;
}

static void fill(Tensor* t, CubridgeDLTensor* out, int64_t* shape, int64_t* strides) {
  out->data = t->data;
  out->device.device_type = CUBRIDGE_DL_CUDA;
  out->device.device_id = t->device;
  out->ndim = 1;
  out->dtype.code = CUBRIDGE_DL_FLOAT;
  out->dtype.bits = 32;
  out->dtype.lanes = 1;
  out->shape = shape;
  out->strides = strides;
  out->byte_offset = 0;
}

static int allocator(CubridgeDLTensor* prototype, CubridgeDLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void*, const char*, const char*)) {
  (void)prototype;
  (void)out;
  if (set_error != NULL) set_error(error_ctx, "RuntimeError", "host_torchlike allocates no tensors");
  return -1;
}

typedef struct {
  CubridgeDLManagedTensorVersioned mt;
  int64_t shape[1];
  int64_t strides[1];
  PyObject* owner;
} Managed;

static void managed_deleter(CubridgeDLManagedTensorVersioned* self) {
  Managed* m = (Managed*)self;
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(m->owner);
  PyGILState_Release(g);
  free(m);
}

static int from_py_object(void* py_object, CubridgeDLManagedTensorVersioned** out) {
  PyObject* obj = (PyObject*)py_object;
  ++g_from_object;
  if (check(obj) != 0) return -1;
  Managed* m = (Managed*)calloc(1, sizeof(Managed));
  if (m == NULL) {
    PyErr_NoMemory();
    return -1;
  }
  Tensor* t = (Tensor*)obj;
  m->shape[0] = t->shape[0];
  m->strides[0] = t->strides[0];
  m->owner = obj;
  Py_INCREF(obj);
  m->mt.version.major = CUBRIDGE_DLPACK_MAJOR_VERSION;
  m->mt.version.minor = 3;
  m->mt.deleter = managed_deleter;
  fill(t, &m->mt.dl_tensor, m->shape, m->strides);
  *out = &m->mt;
  return 0;
}

static int to_py_object(CubridgeDLManagedTensorVersioned* tensor, void** out) {
  (void)tensor;
  (void)out;
  PyErr_SetString(PyExc_RuntimeError, "host_torchlike makes no tensors from DLPack");
  return -1;
}

static int dltensor_from_py_object(void* py_object, CubridgeDLTensor* out) {
  PyObject* obj = (PyObject*)py_object;
  ++g_dltensor;
  if (check(obj) != 0) return -1;
  Tensor* t = (Tensor*)obj;
  fill(t, out, t->shape, t->strides);
  return 0;
}

static int work_stream(int32_t device_type, int32_t device_id, void** out) {
  (void)device_id;
  ++g_work_stream;
  if (device_type != CUBRIDGE_DL_CUDA) return -1;
  *out = g_stream;
  return 0;
}

static CubridgeDLPackExchangeAPI g_table = {
    {{CUBRIDGE_DLPACK_MAJOR_VERSION, 3}, NULL},
    allocator,
    from_py_object,
    to_py_object,
    dltensor_from_py_object,
    work_stream,
};

static int tensor_init(PyObject* self, PyObject* args, PyObject* kwargs) {
  static char* names[] = {"ptr", "n", "device", NULL};
  unsigned long long ptr = 0;
  long long n = 0;
  int device = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "KL|i", names, &ptr, &n, &device)) return -1;
  Tensor* t = (Tensor*)self;
  t->data = (void*)(uintptr_t)ptr;
  t->shape[0] = n;
  t->strides[0] = 1;
  t->device = device;
  return 0;
}

static PyTypeObject TensorType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "host_torchlike.Tensor",
    .tp_basicsize = sizeof(Tensor),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = tensor_init,
};

static PyObject* set_stream(PyObject* self, PyObject* arg) {
  (void)self;
  unsigned long long s = PyLong_AsUnsignedLongLong(arg);
  if (s == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  g_stream = (void*)(uintptr_t)s;
  Py_RETURN_NONE;
}

static PyObject* calls(PyObject* self, PyObject* unused) {
  (void)self;
  (void)unused;
  return Py_BuildValue("{sKsKsK}", "managed_tensor_from_py_object_no_sync", g_from_object,
                       "dltensor_from_py_object_no_sync", g_dltensor, "current_work_stream", g_work_stream);
}

static PyMethodDef methods[] = {
    {"set_stream", set_stream, METH_O, "Sets the current work stream every device reports (an int handle)."},
    {"calls", calls, METH_NOARGS, "How many times each table function was called."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, .m_name = "host_torchlike", .m_size = -1, .m_methods = methods};

PyMODINIT_FUNC PyInit_host_torchlike(void) {
  if (PyType_Ready(&TensorType) < 0) return NULL;
  PyObject* cap = PyCapsule_New(&g_table, CUBRIDGE_DLPACK_EXCHANGE_API_CAPSULE, NULL);
  if (cap == NULL || PyDict_SetItemString(TensorType.tp_dict, "__dlpack_c_exchange_api__", cap) < 0) return NULL;
  Py_DECREF(cap);
  PyType_Modified(&TensorType);
  PyObject* m = PyModule_Create(&module);
  if (m == NULL) return NULL;
  Py_INCREF(&TensorType);
  if (PyModule_AddObject(m, "Tensor", (PyObject*)&TensorType) < 0) return NULL;
  return m;
}
