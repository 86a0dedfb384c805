# Build-time embedding of data files (the web page, the demo replay script) into the library, so the
# `sigil` binary runs from any folder with nothing beside it.
#
# sigil_embed(<target> <set> <folder>): every file under <folder> (found at configure time; CONFIGURE_DEPENDS
# re-globs when files are added) becomes an entry of `sigil::embed::<set>()`, its path relative to <folder>.
# A generated .cpp is rebuilt whenever one of the files changes.
set(SIGIL_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_gen.cmake)

function(sigil_embed target set folder)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS LIST_DIRECTORIES false ${folder}/*)
  list(FILTER files EXCLUDE REGEX "/(node_modules|\\.[^/]*)/")
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
