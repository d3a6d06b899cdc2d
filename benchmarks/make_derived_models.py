#!/usr/bin/env python3
"""Benchmark models derived from the ../shared/bench suite with onnxruntime's own tools, for the
graph-optimizer comparisons (compare.py makes them on demand):

  bert_base_ort_fused, bert_tiny_ort_fused
      bert_base / bert_tiny through onnxruntime's transformer optimizer
      (onnxruntime.transformers.optimizer.optimize_model, model_type "bert"): com.microsoft
      Attention, SkipLayerNormalization, BiasGelu, EmbedLayerNormalization where it matches.
      Its attention fusion matches the mask path written with two one-axis Unsqueezes (as the
      PyTorch exporter writes it); the bench models unsqueeze attention_mask once with axes
      [1, 2], so that node is split in two first (the same values).
  resnet50_qdq, mobilenetv2_qdq
      int8 QDQ models from onnxruntime.quantization.quantize_static (QuantFormat.QDQ, uint8
      activations, int8 weights, MinMax calibration on 8 inputs drawn from the sidecar's fill
      spec with a fixed seed).

Each gets a sidecar <name>.json copied from its source model's (inputs, fill spec), with
"derived_from" and "recipe" added.

    .venv/bin/python benchmarks/make_derived_models.py build-perf/bench-models \\
        --models bert_base_ort_fused,resnet50_qdq
"""
import argparse
import json
import os
import subprocess
import sys


HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# name -> (source model, recipe, arguments)
RECIPES = {
    "bert_base_ort_fused": ("bert_base", "transformer_optimizer", {"num_heads": 12,
                                                                   "hidden_size": 768}),
    "bert_tiny_ort_fused": ("bert_tiny", "transformer_optimizer", {"num_heads": 2,
                                                                   "hidden_size": 128}),
    "resnet50_qdq": ("resnet50", "quantize_static", {}),
    "mobilenetv2_qdq": ("mobilenetv2", "quantize_static", {}),
}


def make_models_script():
    shared = os.environ.get("PRISM_SHARED_DIR") or os.path.normpath(
        os.path.join(REPO, "..", "shared"))
    return os.path.join(shared, "bench", "make_models.py")


def sidecar_inputs(sidecar, seed):
    """Arrays by the sidecar's fill spec, drawn as compare.py draws them."""
    sys.path.insert(0, HERE)
    from compare import make_inputs  # noqa: PLC0415 (imports onnxruntime)
    return dict(make_inputs(sidecar, seed))


def split_mask_unsqueeze(model):
    """Unsqueeze(attention_mask, axes=[a, b]) -> Unsqueeze(Unsqueeze(attention_mask, [a]), [b])."""
    import onnx  # noqa: PLC0415
    from onnx import helper, numpy_helper  # noqa: PLC0415
    graph = model.graph
    constants = {n.output[0]: n for n in graph.node if n.op_type == "Constant"}
    initializers = {i.name: i for i in graph.initializer}
    for position, node in enumerate(graph.node):
        if node.op_type != "Unsqueeze" or node.input[0] != "attention_mask" or len(node.input) < 2:
            continue
        axes_name = node.input[1]
        if axes_name in initializers:
            axes = numpy_helper.to_array(initializers[axes_name])
        else:
            axes = numpy_helper.to_array(constants[axes_name].attribute[0].t)
        if len(axes) != 2:
            return False
        first = helper.make_tensor("attention_mask_axis_a", onnx.TensorProto.INT64, [1],
                                   [int(axes[0])])
        second = helper.make_tensor("attention_mask_axis_b", onnx.TensorProto.INT64, [1],
                                    [int(axes[1])])
        graph.initializer.extend([first, second])
        output = node.output[0]
        graph.node.remove(node)
        graph.node.insert(position, helper.make_node(
            "Unsqueeze", ["attention_mask_unsqueezed", second.name], [output]))
        graph.node.insert(position, helper.make_node(
            "Unsqueeze", ["attention_mask", first.name], ["attention_mask_unsqueezed"]))
        return True
    return False


def transformer_optimizer(source, target, arguments):
    import onnx  # noqa: PLC0415
    from onnxruntime.transformers import optimizer  # noqa: PLC0415 (heavy import)
    model = onnx.load(source)
    split_mask_unsqueeze(model)
    staged = target + ".staged.onnx"
    onnx.save(model, staged)
    try:
        optimized = optimizer.optimize_model(staged, model_type="bert", opt_level=0,
                                             num_heads=arguments["num_heads"],
                                             hidden_size=arguments["hidden_size"])
    finally:
        os.remove(staged)
    statistics = optimized.get_fused_operator_statistics()
    if not statistics.get("Attention"):
        raise RuntimeError("onnxruntime's optimizer fused no Attention in %s: %s" % (source,
                                                                                    statistics))
    optimized.save_model_to_file(target)
    return statistics


def quantize_static(source, target, sidecar):
    from onnxruntime import quantization  # noqa: PLC0415 (heavy import)

    class Reader(quantization.CalibrationDataReader):
        def __init__(self):
            self.batches = iter([sidecar_inputs(sidecar, seed) for seed in range(8)])

        def get_next(self):
            return next(self.batches, None)

    preprocessed = target + ".pre.onnx"
    quantization.shape_inference.quant_pre_process(source, preprocessed, skip_symbolic_shape=True)
    try:
        quantization.quantize_static(preprocessed, target, Reader(),
                                     quant_format=quantization.QuantFormat.QDQ,
                                     activation_type=quantization.QuantType.QUInt8,
                                     weight_type=quantization.QuantType.QInt8,
                                     calibrate_method=quantization.CalibrationMethod.MinMax)
    finally:
        if os.path.exists(preprocessed):
            os.remove(preprocessed)
    return {}


def make(models_dir, name):
    source_name, recipe, arguments = RECIPES[name]
    source = os.path.join(models_dir, source_name + ".onnx")
    if not os.path.exists(source):
        subprocess.run([sys.executable, make_models_script(), models_dir, "--models",
                        source_name], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(models_dir, source_name + ".json")) as f:
        sidecar = json.load(f)
    target = os.path.join(models_dir, name + ".onnx")
    if recipe == "transformer_optimizer":
        details = transformer_optimizer(source, target, arguments)
    else:
        details = quantize_static(source, target, sidecar)
    sidecar = dict(sidecar, name=name, derived_from=source_name, recipe=recipe,
                   recipe_details={k: int(v) for k, v in (details or {}).items()})
    for key in ("sha256", "file_bytes", "op_histogram", "nodes"):
        sidecar.pop(key, None)
    with open(os.path.join(models_dir, name + ".json"), "w") as f:
        json.dump(sidecar, f, indent=1)
    print("wrote", target, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models_dir")
    parser.add_argument("--models", default=",".join(RECIPES),
                        help="comma-separated names (default: all): %s" % ", ".join(RECIPES))
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in RECIPES]
    if unknown:
        parser.error("unknown derived model(s) %s; known: %s" % (", ".join(unknown),
                                                               ", ".join(RECIPES)))
    os.makedirs(args.models_dir, exist_ok=True)
    for name in names:
        make(args.models_dir, name)


if __name__ == "__main__":
    main()
