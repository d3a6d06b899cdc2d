function(prism_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-unused-parameter
                         # GCC 12 reports false -Wrestrict positives inside std::string at -O3
                         # (clang has no such warning: the fuzz build, PRISM_FUZZ).
                         $<$<CXX_COMPILER_ID:GNU>:-Wno-restrict>)
  if(PRISM_WARNINGS_AS_ERRORS)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

if(PRISM_SANITIZE)
  add_compile_options(-fsanitize=${PRISM_SANITIZE} -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${PRISM_SANITIZE})
endif()
