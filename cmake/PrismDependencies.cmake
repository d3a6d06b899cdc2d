# Every dependency comes from Debian packages (see docs/building.md); nothing is vendored.
set(THREADS_PREFER_PTHREAD_FLAG ON)
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)          # must precede ONNX: its config does not find it
find_package(ONNX REQUIRED CONFIG)       # targets onnx_proto / onnx (no namespace)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
if(PRISM_BUILD_TESTS)
  find_package(GTest REQUIRED CONFIG)
  include(GoogleTest)
endif()
