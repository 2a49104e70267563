// Internal: device checks, CAI v3 stream ordering around a launch, and the launch itself.
#include "cubridge/kernel/launch.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "cubridge/array/pointer_attributes.hpp"
#include "cubridge/array/stream_order.hpp"
#include "cubridge/driver/stream_capture.hpp"
#include "cubridge/error.hpp"
#include "support/hex_text.hpp"

namespace cubridge {

namespace {

bool same_stream(StreamRef a, StreamRef b) {
  return a == b || (a.is_legacy_default() && b.is_legacy_default());
}

// The device of a view's memory: the importer's answer, else the driver's (cached by the array layer).
int device_of(const ArrayView& view, const KernelSignature& sig, std::size_t index) {
  if (view.device() >= 0) return view.device();
  const std::string what = sig.parameter_name(index);
  PointerAttributes attrs = check_device_pointer(view.address(), what);
  return attrs.managed ? -1 : attrs.device;  // managed memory is reachable from every device
}

// One view per distinct producer stream that differs from `launch` (each needs one event, not one
// per array).
std::vector<const ArrayView*> producers_to_order(const ArgumentPack& args, StreamRef launch) {
  std::vector<const ArrayView*> out;
  for (const ArrayView* v : args.arrays()) {
    if (v == nullptr || !v->synchronizes() || same_stream(*v->stream(), launch)) continue;
    bool seen = false;
    for (const ArrayView* o : out) seen = seen || same_stream(*o->stream(), *v->stream());
    if (!seen) out.push_back(v);
  }
  return out;
}

// The launch's work that no CUDA graph can record, refused by name while `stream` is being captured (a
// launch under torch.cuda.graph, CuPy's begin_capture, cuda.core's graph builder) rather than left to
// invalidate the capture: a debug=True kernel's wait for its exception flag, and ordering with a producer
// stream outside the capture (the producer would wait for the launch, joining the capture, which then
// cannot end). Asked only when there is such work: a plain launch makes no driver call for it.
void check_capturable(const Kernel& kernel, const ArgumentPack& args, StreamRef stream,
                      const std::vector<const ArrayView*>& producers, bool raises) {
  if ((producers.empty() && !raises) || !is_capturing(stream)) return;
  const std::string capture = " while stream " + support::hex(stream.cai_value()) +
                              " is being captured into a CUDA graph";
  if (raises)
    throw cubridge::InvalidArgument("kernel '" + kernel.name() + "' was compiled with debug=True: after each launch "
                                    "it waits for the stream and reads back whether the kernel raised, which "
                                    "cannot be done" + capture + "; capture the kernel compiled without debug=True");
  const KernelSignature& sig = args.signature();
  std::size_t a = 0;
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (!sig[i].takes_array()) continue;
    const ArrayView* view = args.arrays()[a++];
    bool producer = false;
    for (const ArrayView* p : producers) producer = producer || p == view;
    if (!producer || is_capturing(*view->stream())) continue;
    throw cubridge::InvalidArgument(
        sig.parameter_name(i) + ": the array names producer stream " + support::hex(view->stream()->cai_value()) +
        " (its __cuda_array_interface__ 'stream'), which is not capturing; the launch cannot be ordered with it" +
        capture + " (that stream would wait for the launch and join the capture, which then could not end). "
        "Give the array on the capturing stream (CuPy: launch inside `with stream:`; Numba: the array's "
        "stream), launch on the array's stream outside the capture, or, where the producer's work is "
        "known to be done, turn the consumer's synchronisation off (CUBRIDGE_CUDA_ARRAY_INTERFACE_SYNC=0)");
  }
}

}  // namespace

StreamRef launch_stream(const LaunchConfig& config, const ArgumentPack& args) {
  if (config.stream) return *config.stream;
  for (const ArrayView* v : args.arrays())
    if (v != nullptr && v->synchronizes()) return *v->stream();
  return config.default_stream;
}

StreamRef launch(Kernel& kernel, const LaunchConfig& config, ArgumentPack& args, std::optional<StreamRef> chosen) {
  args.check_complete();
  kernel.validate(config);
  const std::span<const std::byte> packed = args.packed_for(kernel);  // refuses a signature the kernel lays out otherwise
  const int device = kernel.module()->context()->device().ordinal();
  const KernelSignature& sig = args.signature();
  std::size_t a = 0;
  for (std::size_t i = 0; i < sig.size(); ++i) {
    if (!sig[i].takes_array()) continue;
    const ArrayView* view = args.arrays()[a++];
    if (view == nullptr || view->empty()) continue;  // a raw address, or nothing will be dereferenced
    const ArrayView& v = *view;
    int d = device_of(v, sig, i);
    if (d >= 0 && d != device)
      throw cubridge::InvalidArgument(sig.parameter_name(i) + ": the array is on device " +
                                  std::to_string(d) + " but kernel '" + kernel.name() +
                                  "' was loaded on device " + std::to_string(device) +
                                  "; copy the array to device " + std::to_string(device) +
                                  " or load the kernel there");
  }
  const StreamRef stream = chosen ? *chosen : launch_stream(config, args);
  const std::vector<const ArrayView*> producers = producers_to_order(args, stream);
  // The kernel's context is current while the launch is ordered: a default-stream handle names the
  // default stream of the context the kernel runs in, which need not be the caller's (another device).
  ScopedContext kernel_context(*kernel.module()->context());
  const RaiseRecord* raised = kernel.raise_record();
  check_capturable(kernel, args, stream, producers, raised != nullptr);
  ScopedStreamUse use(producers, stream);  // the launch stream waits for each producer
  if (raised != nullptr) {
    ScopedContext scope(*kernel.module()->context());
    raised->reset(stream);
  }
  kernel.launch_validated(config, stream, args.params(), packed);
  use.finish();  // each producer waits for the launch
  if (raised != nullptr) {  // a debug=True kernel: wait for it and report a raise, as numba-cuda does
    ScopedContext scope(*kernel.module()->context());
    raised->check(stream);
  }
  return stream;
}

}  // namespace cubridge
