# Unity builds: a target's sources compiled a directory at a time (src/eval/*.cpp as one translation unit,
# src/server/*.cpp as another, ...) instead of one by one. Most of a from-scratch compile is not our code but
# what our sources share: Boost.Asio/Beast/JSON, std::regex and pybind11's templates, parsed and, worse,
# instantiated, optimised and emitted again in every source that uses them. A unit of a directory's sources does
# that once (docs/building.md has the measurements). One directory per unit keeps the units few enough to share
# much, and enough of them (a dozen over the library, the server, the CLI and the module) to keep both cores busy.
#
# What it asks of the sources: file-local names (anonymous namespaces, static functions) are distinct within a
# directory, since a unit is one translation unit; a collision is a compile error, never a silent change.
# Generated sources (the embedded programs) stay units of their own. The C++ tests are unity-built in batches
# (CMakeLists.txt), each test source's names in a namespace of its own.
# E2BEVAL_UNITY_BUILD=OFF compiles every source on its own (what an edit-compile loop on one file may prefer).
option(E2BEVAL_UNITY_BUILD "Compile each target's sources one directory at a time (unity build)" ON)

# e2beval_unity_build(TARGET): TARGET's sources under the project's directory, grouped by their directory.
function(e2beval_unity_build target)
  if(NOT E2BEVAL_UNITY_BUILD)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  foreach(source IN LISTS sources)
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} OUTPUT_VARIABLE absolute)
    cmake_path(IS_PREFIX PROJECT_SOURCE_DIR "${absolute}" NORMALIZE in_source_tree)
    cmake_path(IS_PREFIX PROJECT_BINARY_DIR "${absolute}" NORMALIZE generated)  # the tree may be in the checkout (build/cpp)
    if(NOT in_source_tree OR generated)
      continue()  # generated: compiled on its own (sources without a group are not in any unit)
    endif()
    cmake_path(RELATIVE_PATH absolute BASE_DIRECTORY ${PROJECT_SOURCE_DIR} OUTPUT_VARIABLE relative)
    cmake_path(GET relative PARENT_PATH directory)
    string(MAKE_C_IDENTIFIER "${directory}" group)
    # A source property: a source two targets compile (src/local/fd_message.cpp is also in the zygote's
    # steps, which are not unity-built) has the same group in both, which only the unity-built one reads.
    set_property(SOURCE ${source} DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} PROPERTY UNITY_GROUP ${group})
  endforeach()
  set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_MODE GROUP)
  # GCC warns (-Wsubobject-linkage) when a class defined in an included file has a member whose type has internal
  # linkage, since a header's class so defined differs in every source including it. In a unit the included
  # files are our .cpp files, each compiled exactly once, so the premise does not hold; GCC 12 says it of
  # coroutine frames in src/e2b (frames holding a value of an anonymous-namespace type). The non-unity build
  # (E2BEVAL_UNITY_BUILD=OFF) keeps the warning for real headers.
  target_compile_options(${target} PRIVATE -Wno-subobject-linkage)
endfunction()
