# Checks that a shared library's dynamic symbol table defines exactly the expected symbols.
#   cmake -DLIBRARY=path/libprism.so -DEXPECTED=PrismGetApiBase [-DNM=nm] -P check_exports.cmake
if(NOT NM)
  set(NM nm)
endif()
execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY}
                OUTPUT_VARIABLE listing ERROR_VARIABLE errors RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIBRARY} failed (${result}): ${errors}")
endif()
string(REGEX REPLACE "\n$" "" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(symbols "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>": the name is the last field.
  string(REGEX REPLACE "^.* " "" name "${line}")
  list(APPEND symbols "${name}")
endforeach()
if(NOT symbols STREQUAL EXPECTED)
  message(FATAL_ERROR "${LIBRARY} exports:\n${listing}\nexpected exactly: ${EXPECTED}")
endif()
message(STATUS "${LIBRARY} exports exactly: ${symbols}")
