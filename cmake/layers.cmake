# One CMake target per layer of docs/architecture.md (sigil_text, sigil_parse, ..., sigil_server), so the build
# itself refuses an include that breaks the layer table: each layer compiles with an include folder of its own
# (build/<preset>/layers/<layer>/) that holds only
#   <layer>/       -> src/<layer>/            its own private headers ("server/frame_queue.h")
#   sigil/<used>/  -> include/sigil/<used>/   the public headers of itself and of the layers it may use
# as symbolic links. A private header of another layer, or a public header of a layer it may not use, is then
# "No such file or directory". What each layer may use comes from the table itself (scripts/check-layers
# --uses: one home for the fact). The layers' objects make up one installable library, sigil_core (libsigil.a).
#
# sigil_layer_targets(<out_var> <layer>...): creates the targets, returns their names.
find_package(Python3 REQUIRED COMPONENTS Interpreter)

function(sigil_layer_targets out)
  execute_process(COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/scripts/check-layers --uses
                  OUTPUT_VARIABLE table RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "sigil: scripts/check-layers --uses failed: cannot read docs/architecture.md's table")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/docs/architecture.md)
  string(STRIP "${table}" table)
  string(REPLACE "\n" ";" rows "${table}")
  set(known)
  foreach(row IN LISTS rows)
    string(REPLACE " " ";" words "${row}")
    list(POP_FRONT words name)
    list(APPEND known ${name})
    set(uses_${name} ${words})  # empty (unset) for a layer of std only
  endforeach()

  set(targets)
  foreach(layer IN LISTS ARGN)
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${layer}/*.cpp)
    if(NOT sources AND NOT layer STREQUAL "embed")
      continue()
    endif()
    if(NOT layer IN_LIST known)
      message(FATAL_ERROR "sigil: src/${layer}/ is not a layer of docs/architecture.md's table")
    endif()
    set(dir ${CMAKE_BINARY_DIR}/layers/${layer})
    file(REMOVE_RECURSE ${dir})
    file(MAKE_DIRECTORY ${dir}/sigil)
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${layer} ${dir}/${layer} SYMBOLIC)
    foreach(used IN LISTS layer uses_${layer})
      if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/include/sigil/${used})
        file(CREATE_LINK ${CMAKE_SOURCE_DIR}/include/sigil/${used} ${dir}/sigil/${used} SYMBOLIC)
      endif()
    endforeach()
    add_library(sigil_${layer} OBJECT ${sources})
    target_include_directories(sigil_${layer} PRIVATE ${dir})
    list(APPEND targets sigil_${layer})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()
