# PRISM_FUZZ: every object is compiled with libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link) and the sanitizers; UBSan findings abort instead of printing and
# going on, so that libFuzzer reports them as crashes. The targets themselves link
# -fsanitize=fuzzer (fuzz/CMakeLists.txt).
if(PRISM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PRISM_FUZZ needs clang (configure with CC=clang CXX=clang++); "
                        "CMAKE_CXX_COMPILER_ID is ${CMAKE_CXX_COMPILER_ID}")
  endif()
  if(NOT PRISM_SANITIZE)
    set(PRISM_SANITIZE "address,undefined")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
  if(PRISM_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
