// Map values (ai.onnx.ml's map(K, V) and seq(map(K, V))): TensorMap's ordering and checks, the
// type strings in onnxruntime's spelling, kernel lookup by map constraints, map types read from
// model protos and written back, and the session's checks of map feeds.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "../graph/model_builder_util.h"
#include "framework/kernel_registry.h"
#include "graph/model.h"
#include "graph/model_writer.h"
#include "op_tester.h"

namespace prism::testing {
namespace {

using E = ElementType;
using Strings = std::vector<std::string>;

std::vector<int64_t> Ints(const Tensor& tensor) {
  return std::vector<int64_t>(tensor.Data<int64_t>(),
                              tensor.Data<int64_t>() + tensor.NumElements());
}

TEST(MapValueTest, AscendingKeysShareTheTensors) {
  const Tensor keys = MakeTensor<int64_t>({3}, {-4, 0, 9});
  const Tensor values = MakeTensor<float>({3}, {1.0f, 2.0f, 3.0f});
  const TensorMap map = TensorMap::Make(keys, values);
  EXPECT_EQ(map.keys.RawData(), keys.RawData());
  EXPECT_EQ(map.values.RawData(), values.RawData());
  EXPECT_EQ(map.Size(), 3);
}

TEST(MapValueTest, KeysAreSortedAndTheFirstOfARepeatedKeyIsKept) {
  const TensorMap map =
      TensorMap::Make(MakeTensor<int64_t>({5}, {7, 2, 7, -1, 2}),
                      MakeTensor<std::string>({5}, {"seven", "two", "again", "minus", "twice"}));
  EXPECT_EQ(Ints(map.keys), (std::vector<int64_t>{-1, 2, 7}));
  const std::string* values = map.values.Data<std::string>();
  EXPECT_EQ(Strings(values, values + 3), (Strings{"minus", "two", "seven"}));
}

TEST(MapValueTest, StringKeysSortBytewise) {
  const TensorMap map = TensorMap::Make(MakeTensor<std::string>({3}, {"b", "B", "a"}),
                                        MakeTensor<double>({3}, {1.0, 2.0, 3.0}));
  const std::string* keys = map.keys.Data<std::string>();
  EXPECT_EQ(Strings(keys, keys + 3), (Strings{"B", "a", "b"}));
  EXPECT_EQ(map.values.Data<double>()[0], 2.0);
}

TEST(MapValueTest, BadPairsAreRefusedByName) {
  auto error = [](const Tensor& keys, const Tensor& values) {
    try {
      TensorMap::Make(keys, values);
    } catch (const Exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(MakeTensor<float>({1}, {1.0f}), MakeTensor<float>({1}, {1.0f}))
                .find("map keys must be int64 or string, got tensor(float)[1]"),
            std::string::npos);
  EXPECT_NE(error(MakeTensor<int64_t>({1}, {1}), MakeTensor<int32_t>({1}, {1}))
                .find("map values must be float, double, int64 or string, got tensor(int32)[1]"),
            std::string::npos);
  EXPECT_NE(error(MakeTensor<int64_t>({2}, {1, 2}), MakeTensor<float>({1}, {1.0f}))
                .find("must have the same length, got 2 keys and 1 values"),
            std::string::npos);
  EXPECT_NE(error(MakeTensor<int64_t>({1, 1}, {1}), MakeTensor<float>({1}, {1.0f}))
                .find("must be 1-D tensors"),
            std::string::npos);
}

TEST(MapValueTest, TypesInOnnxruntimeSpelling) {
  EXPECT_EQ(ValueType::Map(E::kInt64, E::kFloat).ToString(), "map(int64,tensor(float))");
  EXPECT_EQ(ValueType::SequenceOfMaps(E::kString, E::kFloat).ToString(),
            "seq(map(string,tensor(float)))");
  const Value map = MakeMap<std::string, int64_t>({"a", "b"}, {1, 2});
  EXPECT_TRUE(map.IsMap());
  EXPECT_EQ(map.Type(), ValueType::Map(E::kString, E::kInt64));
  EXPECT_EQ(map.Describe(), "map(string,tensor(int64)) of 2");
  const Value sequence = MakeMapSequence<int64_t, double>({{{1}, {0.5}}, {{2, 3}, {1.0, 2.0}}});
  EXPECT_TRUE(sequence.IsSequence());
  EXPECT_TRUE(sequence.IsMapSequence());
  EXPECT_EQ(sequence.Describe(), "seq(map(int64,tensor(double))) of 2");
}

TEST(MapValueTest, SequenceOfTensorsAccessorRefusesMapsByName) {
  const Value sequence = MakeMapSequence<int64_t, float>({});
  try {
    sequence.GetSequence();
    FAIL() << "GetSequence accepted a sequence of maps";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "expected a sequence of tensors, got seq(map(int64,tensor(float))) of 0"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(Value(MapSequence{
                   E::kInt64, E::kFloat, {MakeMap<std::string, float>({"a"}, {1.0f}).GetMap()}}),
               Exception);
}

onnx::TypeProto MapTypeProto(int key, int value) {
  onnx::TypeProto type;
  type.mutable_map_type()->set_key_type(key);
  type.mutable_map_type()->mutable_value_type()->mutable_tensor_type()->set_elem_type(value);
  return type;
}

// X: map(string, tensor(double)) -> DictVectorizer -> Y; Z: seq(map(int64, tensor(float))) as
// an input passed straight to an output.
onnx::ModelProto MapModel() {
  onnx::ModelProto model = MakeModel(17);
  auto* ml = model.add_opset_import();
  ml->set_domain("ai.onnx.ml");
  ml->set_version(1);
  auto* graph = model.mutable_graph();
  auto* x = graph->add_input();
  x->set_name("X");
  *x->mutable_type() = MapTypeProto(onnx::TensorProto::STRING, onnx::TensorProto::DOUBLE);
  auto* z = graph->add_input();
  z->set_name("Z");
  *z->mutable_type()->mutable_sequence_type()->mutable_elem_type() =
      MapTypeProto(onnx::TensorProto::INT64, onnx::TensorProto::FLOAT);
  auto* node = AddNode(graph, "DictVectorizer", {"X"}, {"Y"}, "vectorize", "ai.onnx.ml");
  auto* vocabulary = node->add_attribute();
  vocabulary->set_name("string_vocabulary");
  vocabulary->set_type(onnx::AttributeProto::STRINGS);
  vocabulary->add_strings("b");
  vocabulary->add_strings("a");
  AddOutput(graph, "Y", onnx::TensorProto::DOUBLE);
  auto* out = graph->add_output();
  out->set_name("Z");
  *out->mutable_type() = z->type();
  return model;
}

TEST(MapValueTest, MapTypesAreReadFromTheModelAndInferred) {
  const std::string bytes = Serialize(MapModel());
  const std::shared_ptr<const Model> model = Model::LoadFromBytes(bytes.data(), bytes.size());
  const Graph& graph = model->MainGraph();
  EXPECT_EQ(graph.FindNodeArg("X")->type, ValueType::Map(E::kString, E::kDouble));
  EXPECT_EQ(graph.FindNodeArg("Z")->type, ValueType::SequenceOfMaps(E::kInt64, E::kFloat));
  EXPECT_EQ(graph.FindNodeArg("Y")->type, ValueType::Tensor(E::kDouble));
  ASSERT_TRUE(graph.FindNodeArg("Y")->shape.has_value());
  EXPECT_EQ(graph.FindNodeArg("Y")->shape->ToString(), "[1,2]");
}

TEST(MapValueTest, MapTypesAreWrittenBack) {
  const std::string bytes = Serialize(MapModel());
  const std::shared_ptr<const Model> model = Model::LoadFromBytes(bytes.data(), bytes.size());
  onnx::ModelProto written;
  ModelToProto(*model, model->MainGraph(), &written);
  ASSERT_EQ(written.graph().input_size(), 2);
  const onnx::TypeProto& x = written.graph().input(0).type();
  ASSERT_TRUE(x.has_map_type());
  EXPECT_EQ(x.map_type().key_type(), onnx::TensorProto::STRING);
  EXPECT_EQ(x.map_type().value_type().tensor_type().elem_type(), onnx::TensorProto::DOUBLE);
  const onnx::TypeProto& z = written.graph().input(1).type();
  ASSERT_TRUE(z.has_sequence_type() && z.sequence_type().elem_type().has_map_type());
  EXPECT_EQ(z.sequence_type().elem_type().map_type().key_type(), onnx::TensorProto::INT64);
  // And the written model loads to the same types.
  std::string again;
  ASSERT_TRUE(written.SerializeToString(&again));
  const std::shared_ptr<const Model> reloaded = Model::LoadFromBytes(again.data(), again.size());
  EXPECT_EQ(reloaded->MainGraph().FindNodeArg("Z")->type,
            ValueType::SequenceOfMaps(E::kInt64, E::kFloat));
}

TEST(MapValueTest, SessionRunsMapFeedsAndPassesASequenceOfMapsThrough) {
  const std::string bytes = Serialize(MapModel());
  InferenceSession session(SessionOptions{}, {});
  session.Load(bytes.data(), bytes.size());
  const Value x = MakeMap<std::string, double>({"a", "zz"}, {2.5, 9.0});
  const Value z = MakeMapSequence<int64_t, float>({{{3, 1}, {0.5f, 0.25f}}});
  const std::vector<Value> out = session.Run(RunOptions{}, {"X", "Z"}, {x, z}, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(CompareValues(Value(MakeTensor<double>({1, 2}, {0.0, 2.5})), out[0], Tolerance{}), "");
  EXPECT_EQ(CompareValues(z, out[1], Tolerance{}), "");
}

TEST(MapValueTest, SessionRefusesFeedsOfAnotherTypeByName) {
  const std::string bytes = Serialize(MapModel());
  InferenceSession session(SessionOptions{}, {});
  session.Load(bytes.data(), bytes.size());
  const Value z = MakeMapSequence<int64_t, float>({});
  auto error = [&](const Value& x, const Value& zz) {
    try {
      session.Run(RunOptions{}, {"X", "Z"}, {x, zz}, {});
    } catch (const Exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(Value(MakeTensor<double>({1}, {1.0})), z)
                .find("input 'X' expects map(string,tensor(double)), got tensor(double)[1]"),
            std::string::npos);
  EXPECT_NE(error(MakeMap<std::string, float>({"a"}, {1.0f}), z)
                .find("input 'X' expects map(string,tensor(double)), got "
                      "map(string,tensor(float)) of 1"),
            std::string::npos);
  const Value x = MakeMap<std::string, double>({"a"}, {1.0});
  EXPECT_NE(
      error(x, Value(TensorSequence{E::kFloat, {}}))
          .find("input 'Z' expects seq(map(int64,tensor(float))), got seq(tensor(float)) of 0"),
      std::string::npos);
  EXPECT_NE(error(x, MakeMapSequence<std::string, float>({}))
                .find("input 'Z' expects seq(map(int64,tensor(float))), got "
                      "seq(map(string,tensor(float))) of 0"),
            std::string::npos);
  // An empty sequence made without element types is the input's empty sequence of maps.
  const std::vector<Value> out =
      session.Run(RunOptions{}, {"X", "Z"}, {x, Value(TensorSequence{})}, {});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].Describe(), "seq(map(int64,tensor(float))) of 0");
}

TEST(MapValueTest, OptionalMapIsReadAndRefusedByTheOptionalOps) {
  onnx::ModelProto model = MakeModel(18);
  auto* graph = model.mutable_graph();
  auto* x = graph->add_input();
  x->set_name("X");
  *x->mutable_type()->mutable_optional_type()->mutable_elem_type() =
      MapTypeProto(onnx::TensorProto::INT64, onnx::TensorProto::FLOAT);
  AddNode(graph, "OptionalHasElement", {"X"}, {"Y"}, "has");
  AddOutput(graph, "Y", onnx::TensorProto::BOOL);
  const std::string bytes = Serialize(model);
  const std::shared_ptr<const Model> loaded = Model::LoadFromBytes(bytes.data(), bytes.size());
  EXPECT_EQ(loaded->MainGraph().FindNodeArg("X")->type.ToString(),
            "optional(map(int64,tensor(float)))");
  InferenceSession session(SessionOptions{}, {});
  try {
    session.Load(bytes.data(), bytes.size());
    FAIL() << "OptionalHasElement took an optional map";
  } catch (const Exception& e) {
    EXPECT_NE(std::string(e.what()).find("has type optional(map(int64,tensor(float))), which "
                                         "constraint"),
              std::string::npos)
        << e.what();
  }
}

TEST(MapValueTest, MapConstraintsAcceptOnlyTheirMaps) {
  const KernelDef def = KernelDefBuilder("M")
                            .Domain("test")
                            .MapConstraint("T", {{E::kString, E::kFloat}}, {0})
                            .SequenceOfMapsConstraint("S", {{E::kInt64, E::kFloat}}, {}, {0})
                            .Build();
  ASSERT_EQ(def.constraints.size(), 2u);
  EXPECT_FALSE(def.constraints[0].allow_tensor);
  EXPECT_TRUE(def.constraints[0].allowed.empty());
  EXPECT_FALSE(def.constraints[0].maps_in_sequence);
  EXPECT_TRUE(def.constraints[1].maps_in_sequence);
  // Lookups by real nodes: dict_vectorizer_test.cc (a tensor input, a map type outside T1) and
  // zip_map_test.cc (seq(map) outputs).
}

}  // namespace
}  // namespace prism::testing
