# Build-time embedding of data files (the web page, the demo replay script) into the library, so the
# `sigil` binary runs from any folder with nothing beside it.
#
# sigil_embed(<target> <set> <folder> <file>...): each named file under <folder> becomes an entry of
# `sigil::embed::<set>()`, named by its path relative to <folder>. Only named files: whatever else lands in
# the folder (a data folder a user created beside examples/sigil.toml, an editor's backup) stays out of the
# binary. A missing file stops the configure; a generated .cpp is rebuilt whenever one of the files changes.
set(SIGIL_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake)

function(sigil_embed target set folder)
  set(files)
  foreach(name IN LISTS ARGN)
    if(NOT EXISTS ${folder}/${name})
      message(FATAL_ERROR "sigil_embed(${set}): ${folder}/${name} does not exist")
    endif()
    list(APPEND files ${folder}/${name})
  endforeach()
  list(SORT files)
  set(manifest ${CMAKE_BINARY_DIR}/generated/embed_${set}.txt)
  set(output ${CMAKE_BINARY_DIR}/generated/embed_${set}.cpp)
  string(REPLACE ";" "\n" lines "${files}")
  file(CONFIGURE OUTPUT ${manifest} CONTENT "${lines}\n")
  add_custom_command(
    OUTPUT ${output}
    COMMAND ${CMAKE_COMMAND} -DSET=${set} -DBASE=${folder} -DMANIFEST=${manifest} -DOUT=${output}
            -P ${SIGIL_EMBED_SCRIPT}
    DEPENDS ${files} ${manifest} ${SIGIL_EMBED_SCRIPT}
    COMMENT "Embedding ${folder} as sigil::embed::${set}()"
    VERBATIM)
  target_sources(${target} PRIVATE ${output})
endfunction()
