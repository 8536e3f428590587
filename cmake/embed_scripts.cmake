# Writes OUT: a C++ file defining redsim::lock::kEmbeddedScripts[] and
# kEmbeddedScriptCount (declared in lock/embedded_scripts.h) over the text of
# every file in SCRIPTS (a list separated by '|' or ';'), keyed by file stem,
# sorted by path.
# The file is rewritten only when its content changes.
set(body "// Generated from scripts/*.lua by cmake/embed_scripts.cmake. Do not edit.\n")
string(APPEND body "#include \"lock/embedded_scripts.h\"\n\nnamespace redsim::lock {\n\n")
string(APPEND body "const EmbeddedScript kEmbeddedScripts[] = {\n")
string(REPLACE "|" ";" paths "${SCRIPTS}")
list(SORT paths)
set(count 0)
foreach(path IN LISTS paths)
  get_filename_component(stem ${path} NAME_WE)
  file(READ ${path} text)
  string(FIND "${text}" ")redsim_lua\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${path} contains the raw-string delimiter )redsim_lua\"")
  endif()
  string(APPEND body "    {\"${stem}\", R\"redsim_lua(${text})redsim_lua\"},\n")
  math(EXPR count "${count} + 1")
endforeach()
if(count EQUAL 0)
  string(APPEND body "    {\"\", \"\"},\n")
endif()
string(APPEND body "};\nconst int kEmbeddedScriptCount = ${count};\n\n}  // namespace redsim::lock\n")
file(WRITE ${OUT}.tmp "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
