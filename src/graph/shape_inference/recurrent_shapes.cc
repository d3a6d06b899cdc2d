// RNN, GRU and LSTM: Y [seq_length, num_directions, batch_size, hidden_size] (layout 1:
// [batch_size, seq_length, num_directions, hidden_size]); Y_h and, for LSTM, Y_c
// [num_directions, batch_size, hidden_size] (layout 1: [batch_size, num_directions,
// hidden_size]). hidden_size is the attribute, else R's last dim, else W's rows / gates.
#include <optional>
#include <string>
#include <vector>

#include "graph/shape_inference/inference_context.h"

namespace prism {
namespace {

void Recurrent(InferenceContext& context) {
  const std::string& op = context.GetNode().OpType();
  const int64_t gates = op == "RNN" ? 1 : op == "GRU" ? 3 : 4;
  const Attribute* direction = context.Attr("direction");
  const int64_t directions = direction != nullptr && direction->s == "bidirectional" ? 2 : 1;
  const int64_t layout = context.IntAttr("layout", 0);
  const ElementType elem = context.InputElem(0);
  const size_t outputs = context.GetNode().OutputCount();

  Dim hidden;
  if (context.Attr("hidden_size") != nullptr) {
    hidden = KnownDim(context.IntAttr("hidden_size", 0));
  } else if (const SymbolicShape* r = context.InputShape(2); r && r->dims.size() == 3) {
    hidden = r->dims[2];
  } else if (const SymbolicShape* w = context.InputShape(1);
             w && w->dims.size() == 3 && w->dims[1].IsKnown()) {
    hidden = KnownDim(w->dims[1].value / gates);
  }

  const SymbolicShape* x = context.InputShape(0);
  if (x != nullptr && x->dims.size() != 3)
    context.Fail(MakeString("input X must have rank 3, got ", x->ToString()));
  if (x == nullptr) {
    for (size_t o = 0; o < outputs; ++o) context.SetOutput(o, elem, std::nullopt);
    return;
  }
  const Dim seq = x->dims[layout == 0 ? 0 : 1];
  const Dim batch = x->dims[layout == 0 ? 1 : 0];
  const Dim dirs = KnownDim(directions);
  context.SetOutput(0, elem,
                    layout == 0 ? SymbolicShape{{seq, dirs, batch, hidden}}
                                : SymbolicShape{{batch, seq, dirs, hidden}});
  const SymbolicShape state =
      layout == 0 ? SymbolicShape{{dirs, batch, hidden}} : SymbolicShape{{batch, dirs, hidden}};
  for (size_t o = 1; o < outputs && o < 3; ++o) context.SetOutput(o, elem, state);
}

}  // namespace

void RegisterRecurrentShapes() {
  for (const char* op : {"RNN", "GRU", "LSTM"}) RegisterShapeInference(op, Recurrent);
}

}  // namespace prism
