"""Batch-N variants of ../shared/bench models: the first dim of every graph input set to N, the
intermediate shapes dropped and inferred again. The bench models keep their batch dim out of
their constants (Flatten(axis=1), BERT's Reshape to [0, 0, heads, head_size]; its position and
token-type ids are [1, seq] and broadcast), so the variant computes N independent samples.

  python benchmarks/make_batch_variants.py MODELS_DIR --models resnet50,bert_base --batch 32

writes MODELS_DIR/<model>_b32.onnx beside each model.
"""
import argparse
import os

import onnx


def batch_variant(model, batch):
    initializers = {i.name for i in model.graph.initializer}
    for value in model.graph.input:
        if value.name in initializers:
            continue
        value.type.tensor_type.shape.dim[0].dim_value = batch
    for value in model.graph.output:
        value.type.tensor_type.shape.dim[0].dim_value = batch
    del model.graph.value_info[:]
    return onnx.shape_inference.infer_shapes(model)


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models_dir")
    parser.add_argument("--models", default="resnet50,bert_base")
    parser.add_argument("--batch", type=int, default=32)
    args = parser.parse_args()
    for name in args.models.split(","):
        model = onnx.load(os.path.join(args.models_dir, name + ".onnx"))
        variant = batch_variant(model, args.batch)
        path = os.path.join(args.models_dir, f"{name}_b{args.batch}.onnx")
        onnx.save(variant, path)
        print(path)


if __name__ == "__main__":
    main()
