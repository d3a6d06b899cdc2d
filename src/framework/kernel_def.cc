#include "framework/kernel_def.h"

#include "common/status.h"

namespace prism {

std::string KernelDef::VersionRange() const {
  if (end_version == INT_MAX) return MakeString(since_version, "+");
  if (end_version == since_version) return std::to_string(since_version);
  return MakeString(since_version, "-", end_version);
}

KernelDefBuilder::KernelDefBuilder(std::string op_type) {
  def_.op_type = std::move(op_type);
}

KernelDefBuilder& KernelDefBuilder::Domain(std::string domain) {
  def_.domain = std::move(domain);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Versions(int since, int end) {
  def_.since_version = since;
  def_.end_version = end;
  return *this;
}

KernelDefBuilder& KernelDefBuilder::Constraint(std::string name, std::vector<ElementType> allowed,
                                               std::vector<int> inputs, std::vector<int> outputs) {
  TypeConstraint constraint;
  constraint.name = std::move(name);
  constraint.allowed = std::move(allowed);
  constraint.inputs = std::move(inputs);
  constraint.outputs = std::move(outputs);
  def_.constraints.push_back(std::move(constraint));
  return *this;
}

KernelDefBuilder& KernelDefBuilder::MapConstraint(
    std::string name, std::vector<std::pair<ElementType, ElementType>> maps,
    std::vector<int> inputs, std::vector<int> outputs) {
  Constraint(std::move(name), {}, std::move(inputs), std::move(outputs));
  def_.constraints.back().allow_tensor = false;
  def_.constraints.back().maps = std::move(maps);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::SequenceOfMapsConstraint(
    std::string name, std::vector<std::pair<ElementType, ElementType>> maps,
    std::vector<int> inputs, std::vector<int> outputs) {
  MapConstraint(std::move(name), std::move(maps), std::move(inputs), std::move(outputs));
  def_.constraints.back().maps_in_sequence = true;
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AlsoSequence() {
  PRISM_ENFORCE(!def_.constraints.empty(), kFail, "AlsoSequence before any Constraint");
  def_.constraints.back().allow_sequence = true;
  return *this;
}

KernelDefBuilder& KernelDefBuilder::AlsoOptional() {
  PRISM_ENFORCE(!def_.constraints.empty(), kFail, "AlsoOptional before any Constraint");
  def_.constraints.back().allow_optional = true;
  return *this;
}

KernelDefBuilder& KernelDefBuilder::CpuInput(int index) {
  def_.cpu_inputs.insert(index);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::CpuOutput(int index) {
  def_.cpu_outputs.insert(index);
  return *this;
}

KernelDefBuilder& KernelDefBuilder::MayInplace(int input, int output) {
  def_.may_inplace.emplace_back(input, output);
  return *this;
}

}  // namespace prism
