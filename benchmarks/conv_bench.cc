// Convolution microbenchmarks (Google Benchmark): every distinct Conv layer shape of the bench
// models resnet50 and mobilenetv2, and squeezenet1_1's 3x3 layers (../shared/bench; the table
// below was read from them with onnx shape inference), run by Prism's CPU EP (a one-node session:
// NCHW, weights prepacked as the session does, the bias in the GEMM's epilogue) beside oneDNN's
// convolution primitive in the same binary (Debian's libdnnl: source, weights and destination in
// the blocked layouts it chooses, weights reordered once outside the timing; the reorders of the
// activations into and out of that layout are timed on their own, as `dnnl_reorders`), and beside
// Prism's NCHWc direct convolution called through mlas (mlas/nchwc.h; `nchwc`: input and output
// in the blocked layout, channels padded to the block, filter packed once outside the timing, the
// bias in the kernel's store, Prism's intra-op pool), the pair the NCHWc graph rewrite puts in a
// model, for 3x3 stride-1 layers its Winograd F(2x2, 3x3) and F(4x4, 3x3) convolutions
// (`winograd`, `winograd4`, mlas/nchwc_winograd.h, the same blocked tensors), and `blocked`: what
// the NCHWc op runs for the layer (the Winograd tile it picks where that pays, else the direct
// kernel), the figure the bar against oneDNN is about. Counters: GFLOP/s (of the direct
// convolution's multiply-adds, for every variant) and the layer's number of occurrences in its
// model, so that benchmarks/conv_table.py can sum a model's convolution time.
//
//   build/prism_conv_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//       --benchmark_out=conv.json --benchmark_out_format=json     (one command line)
//   .venv/bin/python benchmarks/conv_table.py conv.json
//
// Threads: the benchmark's argument (1 or 2) is Prism's intra-op thread count and oneDNN's
// OpenMP thread count.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/thread_pool.h"
#include "graph/model.h"
#include "mlas/isa_kernels.h"
#include "mlas/nchwc.h"
#include "mlas/nchwc_winograd.h"
#include "onnx/onnx_pb.h"
#include "session/inference_session.h"

#if defined(PRISM_BENCH_WITH_DNNL)
#include <omp.h>

#include <dnnl.hpp>
#endif

namespace {

struct Layer {
  const char* model;
  int64_t channels, height, width, filters, kernel_h, kernel_w, stride, pad, group, count;
  int64_t OutH() const { return (height + 2 * pad - kernel_h) / stride + 1; }
  int64_t OutW() const { return (width + 2 * pad - kernel_w) / stride + 1; }
  double Flops() const {
    return 2.0 * static_cast<double>(filters * OutH() * OutW()) *
           static_cast<double>(channels / group * kernel_h * kernel_w);
  }
  std::string Name() const {
    return std::string(model) + "/" + std::to_string(channels) + "x" + std::to_string(height) +
           "x" + std::to_string(width) + "_k" + std::to_string(kernel_h) + "x" +
           std::to_string(kernel_w) + "_s" + std::to_string(stride) + "_to" +
           std::to_string(filters) + (group > 1 ? "_g" + std::to_string(group) : "");
  }
};

// {model, C, H, W, M, kh, kw, stride, pad, group, occurrences}
const Layer kLayers[] = {
    {"resnet50", 3, 224, 224, 64, 7, 7, 2, 3, 1, 1},
    {"resnet50", 64, 56, 56, 64, 1, 1, 1, 0, 1, 1},
    {"resnet50", 64, 56, 56, 64, 3, 3, 1, 1, 1, 3},
    {"resnet50", 64, 56, 56, 256, 1, 1, 1, 0, 1, 4},
    {"resnet50", 256, 56, 56, 64, 1, 1, 1, 0, 1, 2},
    {"resnet50", 256, 56, 56, 128, 1, 1, 1, 0, 1, 1},
    {"resnet50", 128, 56, 56, 128, 3, 3, 2, 1, 1, 1},
    {"resnet50", 128, 28, 28, 512, 1, 1, 1, 0, 1, 4},
    {"resnet50", 256, 56, 56, 512, 1, 1, 2, 0, 1, 1},
    {"resnet50", 512, 28, 28, 128, 1, 1, 1, 0, 1, 3},
    {"resnet50", 128, 28, 28, 128, 3, 3, 1, 1, 1, 3},
    {"resnet50", 512, 28, 28, 256, 1, 1, 1, 0, 1, 1},
    {"resnet50", 256, 28, 28, 256, 3, 3, 2, 1, 1, 1},
    {"resnet50", 256, 14, 14, 1024, 1, 1, 1, 0, 1, 6},
    {"resnet50", 512, 28, 28, 1024, 1, 1, 2, 0, 1, 1},
    {"resnet50", 1024, 14, 14, 256, 1, 1, 1, 0, 1, 5},
    {"resnet50", 256, 14, 14, 256, 3, 3, 1, 1, 1, 5},
    {"resnet50", 1024, 14, 14, 512, 1, 1, 1, 0, 1, 1},
    {"resnet50", 512, 14, 14, 512, 3, 3, 2, 1, 1, 1},
    {"resnet50", 512, 7, 7, 2048, 1, 1, 1, 0, 1, 3},
    {"resnet50", 1024, 14, 14, 2048, 1, 1, 2, 0, 1, 1},
    {"resnet50", 2048, 7, 7, 512, 1, 1, 1, 0, 1, 2},
    {"resnet50", 512, 7, 7, 512, 3, 3, 1, 1, 1, 2},
    {"mobilenetv2", 3, 224, 224, 32, 3, 3, 2, 1, 1, 1},
    {"mobilenetv2", 32, 112, 112, 32, 3, 3, 1, 1, 32, 1},
    {"mobilenetv2", 32, 112, 112, 16, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 16, 112, 112, 96, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 96, 112, 112, 96, 3, 3, 2, 1, 96, 1},
    {"mobilenetv2", 96, 56, 56, 24, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 24, 56, 56, 144, 1, 1, 1, 0, 1, 2},
    {"mobilenetv2", 144, 56, 56, 144, 3, 3, 1, 1, 144, 1},
    {"mobilenetv2", 144, 56, 56, 24, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 144, 56, 56, 144, 3, 3, 2, 1, 144, 1},
    {"mobilenetv2", 144, 28, 28, 32, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 32, 28, 28, 192, 1, 1, 1, 0, 1, 3},
    {"mobilenetv2", 192, 28, 28, 192, 3, 3, 1, 1, 192, 2},
    {"mobilenetv2", 192, 28, 28, 32, 1, 1, 1, 0, 1, 2},
    {"mobilenetv2", 192, 28, 28, 192, 3, 3, 2, 1, 192, 1},
    {"mobilenetv2", 192, 14, 14, 64, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 64, 14, 14, 384, 1, 1, 1, 0, 1, 4},
    {"mobilenetv2", 384, 14, 14, 384, 3, 3, 1, 1, 384, 4},
    {"mobilenetv2", 384, 14, 14, 64, 1, 1, 1, 0, 1, 3},
    {"mobilenetv2", 384, 14, 14, 96, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 96, 14, 14, 576, 1, 1, 1, 0, 1, 3},
    {"mobilenetv2", 576, 14, 14, 576, 3, 3, 1, 1, 576, 2},
    {"mobilenetv2", 576, 14, 14, 96, 1, 1, 1, 0, 1, 2},
    {"mobilenetv2", 576, 14, 14, 576, 3, 3, 2, 1, 576, 1},
    {"mobilenetv2", 576, 7, 7, 160, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 160, 7, 7, 960, 1, 1, 1, 0, 1, 3},
    {"mobilenetv2", 960, 7, 7, 960, 3, 3, 1, 1, 960, 3},
    {"mobilenetv2", 960, 7, 7, 160, 1, 1, 1, 0, 1, 2},
    {"mobilenetv2", 960, 7, 7, 320, 1, 1, 1, 0, 1, 1},
    {"mobilenetv2", 320, 7, 7, 1280, 1, 1, 1, 0, 1, 1},
    // squeezenet1_1's 3x3 expand layers (the rest of it: 1x1 layers and the first convolution).
    {"squeezenet1_1", 16, 55, 55, 64, 3, 3, 1, 1, 1, 2},
    {"squeezenet1_1", 32, 27, 27, 128, 3, 3, 1, 1, 1, 2},
    {"squeezenet1_1", 48, 13, 13, 192, 3, 3, 1, 1, 1, 2},
    {"squeezenet1_1", 64, 13, 13, 256, 3, 3, 1, 1, 1, 2},
};

std::vector<float> RandomValues(int64_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<float> values(static_cast<size_t>(count));
  for (float& v : values) v = value(generator);
  return values;
}

void AddTensor(onnx::GraphProto* graph, const std::string& name, const std::vector<int64_t>& dims,
               const std::vector<float>& values) {
  onnx::TensorProto* tensor = graph->add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) tensor->add_dims(d);
  tensor->set_raw_data(values.data(), values.size() * sizeof(float));
}

void AddValueInfo(onnx::ValueInfoProto* info, const std::string& name,
                  const std::vector<int64_t>& dims) {
  info->set_name(name);
  auto* type = info->mutable_type()->mutable_tensor_type();
  type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) type->mutable_shape()->add_dim()->set_dim_value(d);
}

// Y = Conv(X, W, B) as a model.
std::string ConvModel(const Layer& l) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("conv");
  AddValueInfo(graph->add_input(), "X", {1, l.channels, l.height, l.width});
  AddValueInfo(graph->add_output(), "Y", {1, l.filters, l.OutH(), l.OutW()});
  AddTensor(graph, "W", {l.filters, l.channels / l.group, l.kernel_h, l.kernel_w},
            RandomValues(l.filters * l.channels / l.group * l.kernel_h * l.kernel_w, 2));
  AddTensor(graph, "B", {l.filters}, RandomValues(l.filters, 3));
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Conv");
  node->add_input("X");
  node->add_input("W");
  node->add_input("B");
  node->add_output("Y");
  auto add_ints = [&](const char* name, std::vector<int64_t> values) {
    onnx::AttributeProto* attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values) attribute->add_ints(v);
  };
  add_ints("kernel_shape", {l.kernel_h, l.kernel_w});
  add_ints("strides", {l.stride, l.stride});
  add_ints("pads", {l.pad, l.pad, l.pad, l.pad});
  onnx::AttributeProto* group = node->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(l.group);
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

void SetCounters(benchmark::State& state, const Layer& l) {
  state.counters["GFLOPS"] = benchmark::Counter(l.Flops() * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
  state.counters["count"] = static_cast<double>(l.count);
}

void PrismConv(benchmark::State& state, const Layer& l) {
  prism::SessionOptions options;
  options.intra_op_num_threads = static_cast<int>(state.range(0));
  prism::InferenceSession session(options);
  const std::string bytes = ConvModel(l);
  session.Load(bytes.data(), bytes.size());
  const std::vector<float> x = RandomValues(l.channels * l.height * l.width, 1);
  prism::Tensor input(prism::ElementType::kFloat,
                      prism::TensorShape({1, l.channels, l.height, l.width}),
                      const_cast<float*>(x.data()), prism::CpuMemoryInfo());
  const std::vector<prism::Value> feeds = {prism::Value(input)};
  for (auto _ : state) {
    std::vector<prism::Value> y = session.Run(prism::RunOptions{}, {"X"}, feeds, {"Y"});
    benchmark::DoNotOptimize(y);
  }
  SetCounters(state, l);
}

// The NCHWc shape of a layer: its first layer (few channels) reads plain NCHW, group == channels
// layers are depthwise, the rest blocked; channels padded to the block.
prism::mlas::NchwcConvShape NchwcShape(const Layer& l) {
  const int64_t b = prism::mlas::NchwcBlockSize();
  auto round_up = [b](int64_t c) { return (c + b - 1) / b * b; };
  prism::mlas::NchwcConvShape shape;
  const bool depthwise = l.group > 1;
  shape.input_is_nchw = !depthwise && l.channels < b;
  shape.input_channels = shape.input_is_nchw ? l.channels : round_up(l.channels);
  shape.output_channels = round_up(l.filters);
  shape.groups = depthwise ? shape.output_channels : 1;
  shape.input_h = l.height;
  shape.input_w = l.width;
  shape.output_h = l.OutH();
  shape.output_w = l.OutW();
  shape.kernel_h = l.kernel_h;
  shape.kernel_w = l.kernel_w;
  shape.stride_h = shape.stride_w = l.stride;
  shape.pad_top = shape.pad_left = shape.pad_bottom = shape.pad_right = l.pad;
  return shape;
}

// Prism's NCHWc direct convolution on blocked tensors.
void PrismNchwcConv(benchmark::State& state, const Layer& l) {
  const prism::mlas::NchwcConvShape shape = NchwcShape(l);
  const bool depthwise = shape.IsDepthwise();
  const int64_t cin_w = depthwise ? 1 : shape.input_channels;
  const std::vector<float> w =
      RandomValues(shape.output_channels * cin_w * l.kernel_h * l.kernel_w, 2);
  std::vector<float> packed(static_cast<size_t>(prism::mlas::NchwcPackedFilterFloats(shape)));
  prism::mlas::NchwcPackFilter(shape, w.data(), packed.data());
  const std::vector<float> bias = RandomValues(shape.output_channels, 3);
  const std::vector<float> x = RandomValues(shape.input_channels * l.height * l.width, 1);
  std::vector<float> y(static_cast<size_t>(shape.output_channels * l.OutH() * l.OutW()));
  prism::mlas::NchwcConvEpilogue epilogue;
  epilogue.bias = bias.data();
  prism::ThreadPool pool(static_cast<int>(state.range(0)));
  // Whole grains of items per claim, as the NCHWc op hands them out.
  const int64_t grain = prism::mlas::NchwcConvItemGrain(shape);
  const int64_t units = prism::mlas::NchwcConvWorkItems(shape) / grain;
  const double cost = l.Flops() / static_cast<double>(units);
  for (auto _ : state) {
    pool.ParallelFor(units, cost, [&](int64_t begin, int64_t end) {
      prism::mlas::NchwcConv(shape, x.data(), packed.data(), epilogue, y.data(), begin * grain,
                             end * grain);
    });
    benchmark::DoNotOptimize(y.data());
  }
  SetCounters(state, l);
}

// The same layer by the Winograd F(2x2, 3x3) algorithm (mlas/nchwc_winograd.h), its transformed
// filter packed once outside the timing (3x3, stride 1 layers only).
void PrismWinogradConv(benchmark::State& state, const Layer& l, int output_tile) {
  const prism::mlas::NchwcConvShape shape = NchwcShape(l);
  const std::vector<float> w =
      RandomValues(shape.output_channels * shape.input_channels * l.kernel_h * l.kernel_w, 2);
  const prism::mlas::NchwcWinogradFilter filter =
      prism::mlas::NchwcWinogradFilter::Pack(shape, w.data(), output_tile);
  const std::vector<float> bias = RandomValues(shape.output_channels, 3);
  const std::vector<float> x = RandomValues(shape.input_channels * l.height * l.width, 1);
  std::vector<float> y(static_cast<size_t>(shape.output_channels * l.OutH() * l.OutW()));
  prism::mlas::NchwcConvEpilogue epilogue;
  epilogue.bias = bias.data();
  prism::ThreadPool pool(static_cast<int>(state.range(0)));
  // PRISM_BENCH_WINOGRAD_TILES sets the tiles per work item (how the plan's choice was measured).
  const char* tiles = std::getenv("PRISM_BENCH_WINOGRAD_TILES");
  const prism::mlas::NchwcWinogradPlan plan = prism::mlas::NchwcWinogradPlanFor(
      shape, output_tile, state.range(0), tiles != nullptr ? std::atoll(tiles) : 0);
  const int64_t items = plan.WorkItems(1);
  const double cost = l.Flops() / static_cast<double>(items);
  for (auto _ : state) {
    pool.ParallelFor(items, cost, [&](int64_t begin, int64_t end) {
      prism::mlas::NchwcWinogradConv(shape, plan, x.data(), filter, epilogue, y.data(), begin, end);
    });
    benchmark::DoNotOptimize(y.data());
  }
  SetCounters(state, l);
}

// What the NCHWc op runs for the layer (its bar against oneDNN): the Winograd convolution with
// the tile it picks where that pays, else the direct one.
void PrismBlockedConv(benchmark::State& state, const Layer& l) {
  const prism::mlas::NchwcConvShape shape = NchwcShape(l);
  const int tile = prism::mlas::NchwcWinogradBestTile(prism::mlas::ActiveKernels(), shape);
  if (tile != 0)
    PrismWinogradConv(state, l, tile);
  else
    PrismNchwcConv(state, l);
}

#if defined(PRISM_BENCH_WITH_DNNL)
struct DnnlConv {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  dnnl::memory src_plain, dst_plain, src, weights, bias, dst;
  dnnl::reorder to_blocked, from_blocked;

  explicit DnnlConv(const Layer& l) {
    using tag = dnnl::memory::format_tag;
    using dt = dnnl::memory::data_type;
    const dnnl::memory::dims src_dims = {1, l.channels, l.height, l.width};
    const dnnl::memory::dims dst_dims = {1, l.filters, l.OutH(), l.OutW()};
    const dnnl::memory::dims weight_dims =
        l.group > 1 ? dnnl::memory::dims{l.group, l.filters / l.group, l.channels / l.group,
                                         l.kernel_h, l.kernel_w}
                    : dnnl::memory::dims{l.filters, l.channels, l.kernel_h, l.kernel_w};
    const dnnl::memory::desc src_any(src_dims, dt::f32, tag::any);
    const dnnl::memory::desc dst_any(dst_dims, dt::f32, tag::any);
    const dnnl::memory::desc weights_any(weight_dims, dt::f32, tag::any);
    const dnnl::memory::desc bias_desc({l.filters}, dt::f32, tag::a);
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_any,
        weights_any, bias_desc, dst_any, {l.stride, l.stride}, {l.pad, l.pad}, {l.pad, l.pad});
    const dnnl::convolution_forward::primitive_desc pd(desc, engine);
    conv = dnnl::convolution_forward(pd);
    src_plain = dnnl::memory({src_dims, dt::f32, tag::nchw}, engine);
    dst_plain = dnnl::memory({dst_dims, dt::f32, tag::nchw}, engine);
    src = dnnl::memory(pd.src_desc(), engine);
    dst = dnnl::memory(pd.dst_desc(), engine);
    bias = dnnl::memory(bias_desc, engine);
    weights = dnnl::memory(pd.weights_desc(), engine);
    const std::vector<float> x = RandomValues(l.channels * l.height * l.width, 1);
    std::copy(x.begin(), x.end(), static_cast<float*>(src_plain.get_data_handle()));
    const std::vector<float> b = RandomValues(l.filters, 3);
    std::copy(b.begin(), b.end(), static_cast<float*>(bias.get_data_handle()));
    // Weights reordered once into the primitive's layout (prepacking), outside the timing.
    const std::vector<float> w =
        RandomValues(l.filters * l.channels / l.group * l.kernel_h * l.kernel_w, 2);
    dnnl::memory w_plain({weight_dims, dt::f32, l.group > 1 ? tag::goihw : tag::oihw}, engine);
    std::copy(w.begin(), w.end(), static_cast<float*>(w_plain.get_data_handle()));
    dnnl::reorder(w_plain, weights).execute(stream, w_plain, weights);
    to_blocked = dnnl::reorder(src_plain, src);
    from_blocked = dnnl::reorder(dst, dst_plain);
    to_blocked.execute(stream, src_plain, src);
    stream.wait();
  }
  void Run() {
    conv.execute(stream, {{DNNL_ARG_SRC, src},
                          {DNNL_ARG_WEIGHTS, weights},
                          {DNNL_ARG_BIAS, bias},
                          {DNNL_ARG_DST, dst}});
    stream.wait();
  }
  void Reorders() {
    to_blocked.execute(stream, src_plain, src);
    from_blocked.execute(stream, dst, dst_plain);
    stream.wait();
  }
};

void DnnlConvolution(benchmark::State& state, const Layer& l) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  DnnlConv conv(l);
  for (auto _ : state) conv.Run();
  SetCounters(state, l);
}

void DnnlReorders(benchmark::State& state, const Layer& l) {
  omp_set_num_threads(static_cast<int>(state.range(0)));
  DnnlConv conv(l);
  for (auto _ : state) conv.Reorders();
  state.counters["count"] = static_cast<double>(l.count);
}
#endif

const bool kRegistered = [] {
  for (const Layer& layer : kLayers) {
    const std::string name = layer.Name();
    benchmark::RegisterBenchmark(("conv/" + name + "/prism").c_str(), PrismConv, layer)
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("conv/" + name + "/nchwc").c_str(), PrismNchwcConv, layer)
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("conv/" + name + "/blocked").c_str(), PrismBlockedConv, layer)
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    if (layer.group == 1 &&
        prism::mlas::NchwcWinogradApplies(prism::mlas::ActiveKernels(), NchwcShape(layer))) {
      for (int tile : {2, 4})
        benchmark::RegisterBenchmark(
            ("conv/" + name + "/winograd" + (tile == 4 ? "4" : "")).c_str(),
            [tile](benchmark::State& state, const Layer& l) { PrismWinogradConv(state, l, tile); },
            layer)
            ->Arg(1)
            ->Arg(2)
            ->UseRealTime()
            ->Unit(benchmark::kMicrosecond);
    }
#if defined(PRISM_BENCH_WITH_DNNL)
    benchmark::RegisterBenchmark(("conv/" + name + "/dnnl").c_str(), DnnlConvolution, layer)
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("conv/" + name + "/dnnl_reorders").c_str(), DnnlReorders, layer)
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
#endif
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
