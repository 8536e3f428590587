# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS): drops the debug sections
# of the static libraries in the staging directory (`strip --strip-debug`
# keeps the symbol tables a linker needs). The binary itself is stripped by
# CPACK_STRIP_FILES; without this a RelWithDebInfo package is ~5x larger.
set(_dir "${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
if(NOT _dir)
  set(_dir "${CPACK_TEMPORARY_DIRECTORY}")
endif()
file(GLOB_RECURSE _libs "${_dir}/*.a")
foreach(_lib IN LISTS _libs)
  execute_process(COMMAND "${CPACK_REDSIM_STRIP}" --strip-debug "${_lib}" RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "strip --strip-debug ${_lib} failed: ${_rc}")
  endif()
endforeach()
