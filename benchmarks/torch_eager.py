"""An ONNX graph run as PyTorch eager calls, one torch.nn.functional call per node, in the graph's
order: the peer for Prism's CUDA EP (benchmarks/gpu_compare.py). It covers the ops of the
../shared/bench models (the CNNs and the BERT encoders); any other op raises NotImplementedError
naming it. Shape-like inputs (Reshape's shape, Unsqueeze's axes) are read from initializers on the
host, as a PyTorch model holds them as Python ints.
"""
import numpy as np
from onnx import numpy_helper


def _attributes(node):
    values = {}
    for attribute in node.attribute:
        from onnx import helper
        values[attribute.name] = helper.get_attribute_value(attribute)
    return values


class EagerModel:
    def __init__(self, model, torch, device):
        self.torch = torch
        self.F = torch.nn.functional
        self.device = device
        self.nodes = list(model.graph.node)
        self.outputs = [o.name for o in model.graph.output]
        self.host = {}
        self.values = {}
        for initializer in model.graph.initializer:
            array = numpy_helper.to_array(initializer)
            self.host[initializer.name] = array
            self.values[initializer.name] = torch.from_numpy(array.copy()).to(device)
        for node in self.nodes:
            if node.op_type == "Constant":
                array = numpy_helper.to_array(_attributes(node)["value"])
                self.host[node.output[0]] = array
                self.values[node.output[0]] = torch.from_numpy(array.copy()).to(device)
        self.attributes = [_attributes(node) for node in self.nodes]

    def host_ints(self, name):
        return [int(v) for v in np.asarray(self.host[name]).reshape(-1)]

    def __call__(self, feeds):
        env = dict(self.values)
        env.update(feeds)
        for node, attributes in zip(self.nodes, self.attributes):
            if node.op_type == "Constant":
                continue
            inputs = [env[name] if name else None for name in node.input]
            result = self.run_node(node, attributes, inputs)
            if not isinstance(result, (list, tuple)):
                result = [result]
            for name, value in zip(node.output, result):
                env[name] = value
        return [env[name] for name in self.outputs]

    def run_node(self, node, a, x):
        torch, F = self.torch, self.F
        op = node.op_type
        if op == "Conv":
            kernel_rank = x[1].dim() - 2
            pads = a.get("pads", [0] * (2 * kernel_rank))
            begin, end = pads[:kernel_rank], pads[kernel_rank:]
            data = x[0]
            if begin != end:
                flat = []
                for b, e in zip(reversed(begin), reversed(end)):
                    flat += [b, e]
                data = F.pad(data, flat)
                begin = [0] * kernel_rank
            conv = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}[kernel_rank]
            return conv(data, x[1], x[2] if len(x) > 2 else None,
                        stride=a.get("strides", 1), padding=begin,
                        dilation=a.get("dilations", 1), groups=a.get("group", 1))
        if op == "BatchNormalization":
            return F.batch_norm(x[0], x[3], x[4], x[1], x[2], False, 0.0, a.get("epsilon", 1e-5))
        if op == "Relu":
            return F.relu(x[0])
        if op == "Clip":
            low = float(self.host[node.input[1]]) if len(x) > 1 and x[1] is not None else None
            high = float(self.host[node.input[2]]) if len(x) > 2 and x[2] is not None else None
            return torch.clamp(x[0], low, high)
        if op in ("MaxPool", "AveragePool"):
            kernel = a["kernel_shape"]
            pads = a.get("pads", [0] * (2 * len(kernel)))
            assert pads[:len(kernel)] == pads[len(kernel):], "asymmetric pool pads"
            pool = F.max_pool2d if op == "MaxPool" else F.avg_pool2d
            extra = {} if op == "MaxPool" else {
                "count_include_pad": bool(a.get("count_include_pad", 0))}
            return pool(x[0], kernel, a.get("strides", kernel), pads[:len(kernel)],
                        ceil_mode=bool(a.get("ceil_mode", 0)), **extra)
        if op == "GlobalAveragePool":
            return x[0].mean(dim=tuple(range(2, x[0].dim())), keepdim=True)
        if op == "Flatten":
            axis = a.get("axis", 1)
            return x[0].reshape(int(np.prod(x[0].shape[:axis])), -1)
        if op == "Gemm":
            left = x[0].t() if a.get("transA", 0) else x[0]
            right = x[1].t() if a.get("transB", 0) else x[1]
            out = torch.matmul(left, right) * a.get("alpha", 1.0)
            if len(x) > 2 and x[2] is not None:
                out = out + x[2] * a.get("beta", 1.0)
            return out
        if op == "MatMul":
            return torch.matmul(x[0], x[1])
        if op in ("Add", "Sub", "Mul", "Div", "Pow"):
            return {"Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Div": torch.div,
                    "Pow": torch.pow}[op](x[0], x[1])
        if op in ("Erf", "Sqrt", "Tanh", "Sigmoid", "Exp"):
            return {"Erf": torch.erf, "Sqrt": torch.sqrt, "Tanh": torch.tanh,
                    "Sigmoid": torch.sigmoid, "Exp": torch.exp}[op](x[0])
        if op == "Gather":
            axis = a.get("axis", 0)
            if axis == 0 and x[0].dim() == 2:
                return F.embedding(x[1], x[0])
            return torch.index_select(x[0], axis, x[1].reshape(-1)).reshape(
                *x[0].shape[:axis], *x[1].shape, *x[0].shape[axis + 1:])
        if op == "LayerNormalization":
            axis = a.get("axis", -1)
            axis = axis if axis >= 0 else x[0].dim() + axis
            return F.layer_norm(x[0], x[0].shape[axis:], x[1], x[2] if len(x) > 2 else None,
                                a.get("epsilon", 1e-5))
        if op == "Unsqueeze":
            out = x[0]
            for axis in sorted(self.host_ints(node.input[1])):
                out = out.unsqueeze(axis)
            return out
        if op == "Cast":
            import onnx
            dtype = {onnx.TensorProto.FLOAT: torch.float32, onnx.TensorProto.INT64: torch.int64,
                     onnx.TensorProto.INT32: torch.int32}[a["to"]]
            return x[0].to(dtype)
        if op == "Reshape":
            shape = self.host_ints(node.input[1])
            shape = [x[0].shape[i] if s == 0 else s for i, s in enumerate(shape)]
            return x[0].reshape(shape)
        if op == "Transpose":
            return x[0].permute(a["perm"])
        if op == "Softmax":
            return torch.softmax(x[0], dim=a.get("axis", -1))
        if op == "Concat":
            return torch.cat(x, dim=a["axis"])
        raise NotImplementedError(f"torch_eager: no eager form for {op} (node {node.name})")
